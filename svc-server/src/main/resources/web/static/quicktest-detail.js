// svc dashboard: /quicktest/<id> — live log, status badge, cancel, and the result once it exists.
(function () {
  'use strict';

  const TERMINAL = ['completed', 'failed'];
  // Once finished, the page shows what the server stored: lines an agent posts after its final
  // status never reach the stream (it ends with that status), and a result may be posted later.
  const SETTLE_MS = [300, 1500, 5000];
  const RESULT_RETRY_MS = [10000, 20000, 30000];

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

    function refresh(ids) {
      if (!refreshing) {
        refreshing = window.svc.refreshSections(ids || ['test-meta', 'result-card'])
          .catch(function () { return 0; })
          .finally(function () { refreshing = null; });
      }
      return refreshing;
    }

    // Replaces the live sections with the stored ones a few times, then waits for a late result.
    function settle(step) {
      const delays = SETTLE_MS.concat(RESULT_RETRY_MS);
      if (step >= delays.length) {
        return;
      }
      window.setTimeout(function () {
        (refreshing || Promise.resolve()).then(function () {
          return refresh(['test-meta', 'result-card', 'log', 'log-state']);
        }).then(function () {
          const missingResult = badge.textContent.trim() === 'completed' && !document.getElementById('result-link');
          if (step + 1 < SETTLE_MS.length || missingResult) {
            settle(step + 1);
          }
        });
      }, delays[step]);
    }

    let settling = false;

    function finished() {
      const cancel = document.getElementById('cancel');
      if (cancel) {
        cancel.remove();
      }
      if (!settling) {
        settling = true;
        settle(0);
      }
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
        window.svc.post('/api/v1/quicktest/' + encodeURIComponent(id) + '/cancel', {})
          .then(function (body) {
            window.svc.setStatus(badge, body.status || 'failed');
            finished();
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
