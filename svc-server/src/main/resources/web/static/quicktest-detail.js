// svc dashboard: /quicktest/<id> — live log, status badge, cancel, and the result once it exists.
(function () {
  'use strict';

  const TERMINAL = ['completed', 'failed'];
  // after completion, the result can arrive a little later (a real agent posts it separately)
  const RESULT_RETRY_MS = [1000, 2000, 4000, 8000, 15000, 30000];

  document.addEventListener('DOMContentLoaded', function () {
    const head = document.getElementById('quicktest');
    const log = document.getElementById('log');
    if (!head || !log) {
      return;
    }
    const id = head.getAttribute('data-test-id');
    const badge = document.getElementById('test-status');
    const cancelError = document.getElementById('cancel-error');
    let refreshing = null;

    function isTerminal(status) {
      return TERMINAL.indexOf(status) >= 0;
    }

    function refresh() {
      if (!refreshing) {
        refreshing = window.svc.refreshSections(['test-meta', 'result-card'])
          .catch(function () { return 0; })
          .finally(function () { refreshing = null; });
      }
      return refreshing;
    }

    function awaitResult(attempt) {
      refresh().then(function () {
        const status = badge.textContent.trim();
        if (status === 'completed' && !document.getElementById('result-link') && attempt < RESULT_RETRY_MS.length) {
          window.setTimeout(function () { awaitResult(attempt + 1); }, RESULT_RETRY_MS[attempt]);
        }
      });
    }

    function finished() {
      const cancel = document.getElementById('cancel');
      if (cancel) {
        cancel.remove();
      }
      awaitResult(0);
    }

    window.svc.liveLog({
      log: log,
      state: document.getElementById('log-state'),
      isTerminal: isTerminal,
      onStatus: function (data) {
        window.svc.setStatus(badge, data.status);
        if (isTerminal(data.status)) {
          finished();
        } else {
          refresh(); // timestamps (dispatched, started) changed
        }
      },
      onResult: function () {
        refresh();
      }
    });

    const cancel = document.getElementById('cancel');
    if (cancel) {
      cancel.addEventListener('click', function () {
        cancel.disabled = true;
        cancelError.hidden = true;
        window.svc.api('/api/v1/quicktest/' + encodeURIComponent(id) + '/cancel', { method: 'POST', json: {} })
          .then(function (response) {
            return response.json().catch(function () { return {}; }).then(function (body) {
              if (!response.ok) {
                throw new Error(body.error || 'The server answered ' + response.status);
              }
              window.svc.setStatus(badge, body.status || 'failed');
              finished();
            });
          })
          .catch(function (err) {
            cancel.disabled = false;
            cancelError.textContent = 'Could not cancel: ' + err.message;
            cancelError.hidden = false;
          });
      });
    }
  });
})();
