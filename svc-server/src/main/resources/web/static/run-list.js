// svc dashboard: the quick test and campaign lists — a click anywhere on a row opens it, and the
// status badges follow the status events of the rows shown.
(function () {
  'use strict';

  document.addEventListener('DOMContentLoaded', function () {
    const table = document.querySelector('table[data-live-status]');
    if (!table) {
      return;
    }
    const key = table.getAttribute('data-live-status'); // test_id or campaign_id
    table.addEventListener('click', function (event) {
      const row = event.target.closest('tr.row-link');
      if (!row || event.target.closest('a, button, input') || window.getSelection().toString()) {
        return;
      }
      const link = row.querySelector('a[href]');
      if (link) {
        window.location.assign(link.getAttribute('href'));
      }
    });
    if (!window.EventSource) {
      return;
    }
    const stream = new EventSource('/api/v1/events');
    // A page left for the back/forward cache would hold its stream (browsers open six HTTP/1.1
    // connections per server): close it when hidden, and re-render the page if it is shown again.
    window.addEventListener('pagehide', function () { stream.close(); }, { once: true });
    window.addEventListener('pageshow', function (event) {
      if (event.persisted) {
        window.location.reload();
      }
    });
    stream.addEventListener('status', function (event) {
      let data;
      try {
        data = JSON.parse(event.data);
      } catch (e) {
        return;
      }
      if (!data || !data[key] || !data.status) {
        return;
      }
      table.querySelectorAll('tr[data-row-id]').forEach(function (row) {
        if (row.getAttribute('data-row-id') === data[key]) {
          window.svc.setStatus(row.querySelector('[data-field="status"] .status'), data.status);
        }
      });
    });
  });
})();
