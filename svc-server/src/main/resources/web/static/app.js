// svc dashboard: a CSRF-aware fetch helper and live agent status over Server-Sent Events.
(function () {
  'use strict';

  var meta = document.querySelector('meta[name="csrf-token"]');
  var csrf = meta ? meta.getAttribute('content') : '';

  // fetch() on the same origin with the session cookie and, for state changes, the CSRF header.
  function api(path, options) {
    var opts = Object.assign({ credentials: 'same-origin' }, options || {});
    var headers = new Headers(opts.headers || {});
    var method = (opts.method || 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'HEAD' && csrf) {
      headers.set('X-CSRF-Token', csrf);
    }
    if (opts.json !== undefined) {
      headers.set('Content-Type', 'application/json');
      opts.body = JSON.stringify(opts.json);
      delete opts.json;
    }
    opts.headers = headers;
    return fetch(path, opts);
  }

  // POSTs json to an /api/ path: resolves with the answer's body when the server accepted it, and
  // otherwise rejects with the API's own {"error": ...} message (or the status when it gave none).
  function post(path, json) {
    return api(path, { method: 'POST', json: json }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (answer) {
        if (!response.ok) {
          throw new Error(answer.error || 'The server answered ' + response.status);
        }
        return answer;
      });
    });
  }

  function liveAgents(root) {
    if (!window.EventSource) {
      return;
    }
    var source = new EventSource('/api/v1/events');
    // A page kept in the back/forward cache would keep its stream open, and a browser opens only six
    // HTTP/1.1 connections per server: close it when the page is hidden (pageshow reconnects).
    window.addEventListener('pagehide', function () { source.close(); }, { once: true });
    source.addEventListener('agent_status', function (event) {
      var data;
      try {
        data = JSON.parse(event.data);
      } catch (e) {
        return;
      }
      if (!data || !data.agent_id) {
        return;
      }
      var rows = root.querySelectorAll('[data-agent-id]');
      rows.forEach(function (row) {
        if (row.getAttribute('data-agent-id') !== data.agent_id) {
          return;
        }
        var cell = row.querySelector('[data-field="status"]');
        if (cell && data.status) {
          var badge = cell.querySelector('.status');
          if (badge) {
            badge.textContent = data.status;
            badge.className = 'status status-' + data.status.replace(/[^a-z_-]/gi, '');
          } else {
            cell.textContent = data.status;
          }
        }
        var beat = row.querySelector('[data-field="last_heartbeat_at"] time');
        if (beat && data.last_heartbeat_at) {
          beat.textContent = data.last_heartbeat_at;
        }
      });
    });
  }

  window.svc = { api: api, post: post, csrfToken: csrf };

  document.addEventListener('DOMContentLoaded', function () {
    var live = document.querySelector('[data-live-agents]');
    if (live) {
      liveAgents(live);
    }
  });

  // Back to a page restored from the back/forward cache: its stream was closed on pagehide.
  window.addEventListener('pageshow', function (event) {
    var live = document.querySelector('[data-live-agents]');
    if (event.persisted && live) {
      liveAgents(live);
    }
  });
})();
