// svc global settings: save and clear through PUT /api/v1/settings, then show what GET reports.
(function () {
  'use strict';

  // The same rules as the API (GlobalSettings.validate); an empty value clears the setting.
  function check(key, value) {
    if (value === '') {
      return null;
    }
    if (value.length > 4096) {
      return 'At most 4096 characters.';
    }
    if (key === 'catalog_url') {
      var url;
      try {
        url = new URL(value);
      } catch (e) {
        return 'The catalog service URL must be an http:// or https:// URL.';
      }
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname
        ? null : 'The catalog service URL must be an http:// or https:// URL.';
    }
    return value[0] === '/' || value[0] === '~' ? null : 'Must be an absolute path (starting with / or ~).';
  }

  function apiError(response) {
    return response.json().then(function (body) {
      return body && body.error ? body.error : 'The server answered ' + response.status + '.';
    }, function () {
      return 'The server answered ' + response.status + '.';
    });
  }

  // PUT the changes; resolves with null on success, or the API's error sentence.
  function put(changes) {
    return window.svc.api('/api/v1/settings', { method: 'PUT', json: changes }).then(function (response) {
      return response.ok ? null : apiError(response);
    });
  }

  function settingsPage(form) {
    var status = document.getElementById('settings-status');
    var keys = Array.prototype.map.call(form.querySelectorAll('[data-setting]'), function (row) {
      return row.getAttribute('data-setting');
    });

    function field(key) {
      return document.getElementById('setting-' + key);
    }

    function setError(key, message) {
      var slot = form.querySelector('.field-error[data-error-for="' + key + '"]');
      if (slot) {
        slot.textContent = message || '';
      }
      if (message) {
        field(key).setAttribute('aria-invalid', 'true');
      } else {
        field(key).removeAttribute('aria-invalid');
      }
    }

    function say(text, kind) {
      status.textContent = text;
      status.className = 'form-status' + (kind ? ' ' + kind : '');
    }

    // Re-reads the settings and shows each effective value and source; inputs hold the saved overrides.
    function refresh() {
      return window.svc.api('/api/v1/settings').then(function (response) {
        if (!response.ok) {
          return apiError(response).then(function (text) {
            throw new Error(text);
          });
        }
        return response.json();
      }).then(function (settings) {
        keys.forEach(function (key) {
          var setting = settings[key] || {};
          var value = setting.value == null ? '' : String(setting.value);
          var source = setting.source || 'unset';
          var saved = source === 'database' ? value : '';
          var effective = form.querySelector('[data-effective="' + key + '"]');
          var badge = form.querySelector('[data-source="' + key + '"]');
          effective.textContent = value;
          badge.textContent = source;
          badge.className = 'source-badge source-' + source.replace(/[^a-z]/g, '');
          var input = field(key);
          input.value = saved;
          input.setAttribute('data-saved', saved);
          input.placeholder = value || input.getAttribute('data-placeholder') || '';
        });
        return settings;
      });
    }

    function run(changes, done) {
      say('Saving…');
      form.querySelectorAll('button').forEach(function (b) {
        b.disabled = true;
      });
      return put(changes).then(function (error) {
        if (error) {
          var named = keys.filter(function (key) {
            return error.indexOf(key) >= 0;
          });
          if (named.length === 1) {
            setError(named[0], error);
          }
          say(error, 'error');
          return;
        }
        return refresh().then(function (settings) {
          say(done(settings), 'ok');
        });
      }).catch(function (e) {
        say(e && e.message ? e.message : 'The server could not be reached.', 'error');
      }).then(function () {
        form.querySelectorAll('button').forEach(function (b) {
          b.disabled = false;
        });
      });
    }

    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var changes = {};
      var problems = 0;
      keys.forEach(function (key) {
        var value = field(key).value.trim();
        var problem = check(key, value);
        setError(key, problem);
        if (problem) {
          problems++;
        } else if (value !== field(key).getAttribute('data-saved')) {
          changes[key] = value === '' ? null : value;
        }
      });
      if (problems) {
        say(problems === 1 ? 'One value is not valid; nothing was saved.' : problems + ' values are not valid; nothing was saved.', 'error');
        return;
      }
      var changed = Object.keys(changes);
      if (!changed.length) {
        refresh().then(function () {
          say('Saved — nothing had changed.', 'ok');
        });
        return;
      }
      run(changes, function (settings) {
        var cleared = changed.filter(function (key) {
          return changes[key] === null;
        });
        return 'Saved.' + (cleared.length ? ' Cleared ' + cleared.map(function (key) {
          return key + ' (now ' + settings[key].source + ')';
        }).join(', ') + '.' : '');
      });
    });

    form.addEventListener('click', function (event) {
      var button = event.target.closest('button[data-clear]');
      if (!button) {
        return;
      }
      var key = button.getAttribute('data-clear');
      var changes = {};
      changes[key] = null;
      setError(key, '');
      run(changes, function (settings) {
        var now = settings[key];
        return 'Cleared ' + key + ': now ' + (now.value == null ? 'unset' : now.value + ' (' + now.source + ')') + '.';
      });
    });
  }

  window.svc = window.svc || {};
  window.svc.settings = { check: check, put: put, apiError: apiError };

  document.addEventListener('DOMContentLoaded', function () {
    var form = document.getElementById('global-settings');
    if (form) {
      settingsPage(form);
    }
  });
})();
