// svc dashboard: /campaigns/<id> — live log on the campaign's channel, status badge, progress and
// rows refreshed from the server as the campaign moves, cancel and launch.
(function () {
  'use strict';

  const TERMINAL = ['completed', 'failed', 'cancelled'];
  const REFRESH_DELAY_MS = 700;
  // Once ended, the page shows the stored log: after a cancel the executor still logs how the
  // campaign ended, after the terminal status that ends the stream.
  const SETTLE_MS = [REFRESH_DELAY_MS, 2000, 5000];

  document.addEventListener('DOMContentLoaded', function () {
    const head = document.getElementById('campaign');
    const log = document.getElementById('log');
    if (!head || !log) {
      return;
    }
    const id = head.getAttribute('data-campaign-id');
    const badge = document.getElementById('campaign-status');
    const actionError = document.getElementById('action-error');
    let timer = null;

    function isTerminal(status) {
      return TERMINAL.indexOf(status) >= 0;
    }

    // progress and rows change with every row; refresh them at most once per delay
    function refreshSoon() {
      if (timer === null) {
        timer = window.setTimeout(function () {
          timer = null;
          window.svc.refreshSections(['campaign-progress', 'campaign-rows']).catch(function () { return 0; });
        }, REFRESH_DELAY_MS);
      }
    }

    function settle(step) {
      if (step < SETTLE_MS.length) {
        window.setTimeout(function () {
          window.svc.refreshSections(['campaign-progress', 'campaign-rows', 'log', 'log-state'])
            .catch(function () { return 0; })
            .then(function () { settle(step + 1); });
        }, SETTLE_MS[step]);
      }
    }

    let settling = false;

    function ended() {
      removeButton('cancel');
      if (!settling) {
        settling = true;
        settle(0);
      }
    }

    function removeButton(buttonId) {
      const button = document.getElementById(buttonId);
      if (button) {
        button.remove();
      }
    }

    window.svc.liveLog({
      log: log,
      state: document.getElementById('log-state'),
      isTerminal: isTerminal,
      onStatus: function (data) {
        window.svc.setStatus(badge, data.status);
        if (isTerminal(data.status)) {
          ended();
        } else {
          refreshSoon();
        }
      },
      onLine: refreshSoon
    });

    function act(buttonId, path, done) {
      const button = document.getElementById(buttonId);
      if (!button) {
        return;
      }
      button.addEventListener('click', function () {
        button.disabled = true;
        actionError.hidden = true;
        window.svc.post('/api/v1/campaigns/' + encodeURIComponent(id) + path, {})
          .then(done)
          .catch(function (err) {
            button.disabled = false;
            actionError.textContent = err.message;
            actionError.hidden = false;
          });
      });
    }

    act('cancel', '/cancel', function (body) {
      window.svc.setStatus(badge, body.status || 'cancelled');
      ended();
    });
    // a launched campaign streams from here on: load its page afresh
    act('launch-campaign', '/launch', function () {
      window.location.reload();
    });
  });
})();
