// svc dashboard: the live log of a quick test or campaign, shared by both detail pages.
// The server renders the log events stored so far and the id of the last one (data-last-event-id);
// the stream resumes right after it (?last_event_id=), and on a reconnect the browser's EventSource
// sends Last-Event-ID (which the server prefers), so no line is lost. Ids only grow: an event at or
// below the last one seen is ignored, so none is shown twice.
(function () {
  'use strict';

  function parse(text) {
    try {
      return JSON.parse(text);
    } catch (e) {
      return null;
    }
  }

  // opts: {log, state, onStatus(data), onResult(data), onLine(data), isTerminal(status)}
  function liveLog(opts) {
    const log = opts.log;
    const source = log.getAttribute('data-source');
    let last = parseInt(log.getAttribute('data-last-event-id') || '0', 10) || 0;
    if (!window.EventSource || log.getAttribute('data-live') !== 'true' || !source) {
      return null;
    }
    const url = '/api/v1/events/stream/' + encodeURIComponent(source) + (last > 0 ? '?last_event_id=' + last : '');
    const stream = new EventSource(url);
    // A page left for the back/forward cache would hold its stream (browsers open six HTTP/1.1
    // connections per server): close it when hidden, and re-render the page if it is shown again.
    window.addEventListener('pagehide', function () { stream.close(); }, { once: true });
    window.addEventListener('pageshow', function (event) {
      if (event.persisted) {
        window.location.reload();
      }
    });
    let ended = false;

    function say(text) {
      if (opts.state) {
        opts.state.textContent = text;
      }
    }

    // true when the event was seen already (replayed after a reconnect)
    function seen(event) {
      const id = parseInt(event.lastEventId, 10);
      if (isNaN(id)) {
        return false;
      }
      if (id <= last) {
        return true;
      }
      last = id;
      log.setAttribute('data-last-event-id', String(id));
      return false;
    }

    function append(text) {
      const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
      const line = document.createElement('div');
      line.className = 'line';
      line.textContent = text;
      log.appendChild(line);
      if (atBottom) {
        log.scrollTop = log.scrollHeight;
      }
    }

    function on(type, handle) {
      stream.addEventListener(type, function (event) {
        if (seen(event)) {
          return;
        }
        const data = parse(event.data);
        if (data) {
          handle(data);
        }
      });
    }

    on('log', function (data) {
      append(typeof data.line === 'string' ? data.line : '');
      if (opts.onLine) {
        opts.onLine(data);
      }
    });
    on('status', function (data) {
      if (opts.onStatus) {
        opts.onStatus(data);
      }
      if (data.status && opts.isTerminal && opts.isTerminal(data.status)) {
        ended = true;
        stream.close(); // the server ends the stream after this event; do not reconnect
        say('Finished: ' + data.status + '.');
      }
    });
    on('result', function (data) {
      if (opts.onResult) {
        opts.onResult(data);
      }
    });
    // The server's log is not the one this page showed (another database, or the log was reset): its
    // ids mean nothing here, so show the server's page as it is now.
    stream.addEventListener('reset', function () {
      ended = true;
      stream.close();
      window.location.reload();
    });
    stream.addEventListener('open', function () {
      if (!ended) {
        say('Live: new lines appear as they arrive.');
      }
    });
    stream.addEventListener('error', function () {
      if (ended) {
        return;
      }
      say(stream.readyState === EventSource.CLOSED ? 'The live stream has ended; reload the page for the stored log.'
        : 'Connection lost; reconnecting…');
    });
    return stream;
  }

  // Shows a status in a `<span class="status status-…">` badge.
  function setStatus(badge, status) {
    if (!badge || !status) {
      return;
    }
    badge.textContent = status;
    badge.className = 'status status-' + String(status).replace(/[^a-z_-]/gi, '');
  }

  window.svc = window.svc || {};
  window.svc.liveLog = liveLog;
  window.svc.setStatus = setStatus;
})();
