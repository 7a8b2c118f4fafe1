// svc dashboard: re-reads the current page and swaps in fresh server-rendered sections by id,
// so a live page shows what the server renders (metadata, results, counters) without a reload.
(function () {
  'use strict';

  // Resolves with the number of sections replaced; elements missing on either side are left alone.
  function refreshSections(ids) {
    return fetch(window.location.pathname, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then(function (response) {
        if (!response.ok) {
          throw new Error('HTTP ' + response.status);
        }
        return response.text();
      })
      .then(function (html) {
        const fresh = new DOMParser().parseFromString(html, 'text/html');
        let replaced = 0;
        ids.forEach(function (id) {
          const current = document.getElementById(id);
          const next = fresh.getElementById(id);
          if (current && next) {
            current.replaceWith(document.importNode(next, true));
            replaced++;
          }
        });
        return replaced;
      });
  }

  window.svc = window.svc || {};
  window.svc.refreshSections = refreshSections;
})();
