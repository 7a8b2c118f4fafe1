// svc agents: the Enrol a GPU host card, the Create Test Agent form, an agent's Settings card and its Storage card.
// Every change goes through the REST API (window.svc.api); the browser checks the same rules first.
(function () {
  'use strict';

  var INTEGER = /^-?\d{1,9}$/;

  // The message of an API error reply ({"error": "..."}), or a fallback sentence.
  function apiError(response) {
    return response.json().then(function (body) {
      return body && body.error ? body.error : 'The server answered ' + response.status + '.';
    }, function () {
      return 'The server answered ' + response.status + '.';
    });
  }

  function input(form, name) {
    return form.elements.namedItem(name);
  }

  function fieldError(form, name, message) {
    var slot = form.querySelector('.field-error[data-error-for="' + name + '"]');
    var control = input(form, name);
    if (slot) {
      slot.textContent = message || '';
    }
    if (control && control.setAttribute) {
      if (message) {
        control.setAttribute('aria-invalid', 'true');
      } else {
        control.removeAttribute('aria-invalid');
      }
    }
  }

  function clearErrors(form) {
    form.querySelectorAll('.field-error').forEach(function (slot) {
      fieldError(form, slot.getAttribute('data-error-for'), '');
    });
  }

  // The API names the field it refuses ("Field 'gpu_count' must be ..." or "heartbeat_interval_s must ...").
  function fieldOfApiError(form, message) {
    var quoted = /Field '([a-z_]+)'/.exec(message);
    var name = quoted ? quoted[1] : (/^([a-z_]+) /.exec(message) || [])[1];
    return name && form.querySelector('.field-error[data-error-for="' + name + '"]') ? name : null;
  }

  // A whole number within [min, max], or the sentence that says what is wrong.
  function checkInteger(text, label, min, max) {
    var value = text.trim();
    if (value === '') {
      return label + ' is required: enter a whole number from ' + min + ' to ' + max + '.';
    }
    if (!INTEGER.test(value)) {
      return label + ' must be a whole number (from ' + min + ' to ' + max + '), not "' + value + '".';
    }
    var n = parseInt(value, 10);
    if (n < min || n > max) {
      return label + ' must be from ' + min + ' to ' + max + '; ' + n + ' is out of range.';
    }
    return null;
  }

  // An agent name as the API takes it (one line, at most 255 characters), or the sentence that says what is wrong.
  function checkName(name) {
    if (name === '') {
      return 'Name is required.';
    }
    if (name.length > 255) {
      return 'Name must be at most 255 characters.';
    }
    if (/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2069\ufeff]/.test(name)) {
      return 'Name must be one line of visible characters (no control or formatting characters).';
    }
    return null;
  }

  function busy(form, on) {
    form.querySelectorAll('button[type="submit"]').forEach(function (b) {
      b.disabled = on;
    });
  }

  // --- Enrol a GPU host ---

  // A word the shell takes as is, or the text in single quotes.
  function shellWord(text) {
    return /^[A-Za-z0-9_.,:@%+=\/-]+$/.test(text) ? text : "'" + text.replace(/'/g, "'\\''") + "'";
  }

  // The commands that enrol the host: the token read from the terminal into SVC_AGENT_TOKEN (so it stays out of
  // the shell history and of the process list), init (this server, the agent's name, the pinned CA), preflight, start.
  function enrolCommands(origin, agent, fingerprint) {
    var init = ['svc-agent init', '--server', shellWord(origin), '--name', shellWord(agent.name)];
    if (fingerprint) {
      init.push('--ca-fingerprint', shellWord(fingerprint));
    }
    return ["read -rsp 'Agent token: ' SVC_AGENT_TOKEN && echo && export SVC_AGENT_TOKEN", init.join(' '),
      'svc-agent preflight', 'svc-agent start'].join('\n');
  }

  // The new agent's row in the table (the live stream updates the status of rows already there).
  function addAgentRow(agent) {
    var table = document.querySelector('table#agents tbody');
    if (!table || table.querySelector('tr[data-agent-id="' + agent.agent_id + '"]')) {
      return;
    }
    table.querySelectorAll('td.empty').forEach(function (cell) {
      table.removeChild(cell.parentNode);
    });
    var row = document.createElement('tr');
    row.setAttribute('data-agent-id', agent.agent_id);
    var name = document.createElement('td');
    var link = document.createElement('a');
    link.href = '/agents/' + encodeURIComponent(agent.agent_id);
    link.textContent = agent.name;
    name.appendChild(link);
    var status = document.createElement('td');
    status.setAttribute('data-field', 'status');
    var badge = document.createElement('span');
    badge.className = 'status status-provisioned';
    badge.textContent = 'provisioned';
    status.appendChild(badge);
    var beat = document.createElement('td');
    beat.setAttribute('data-field', 'last_heartbeat_at');
    beat.appendChild(document.createElement('time'));
    row.appendChild(name);
    row.appendChild(status);
    row.appendChild(beat);
    row.appendChild(document.createElement('td'));
    row.appendChild(document.createElement('td'));
    table.appendChild(row);
  }

  // Copies the value (input) or the text (data-text, else the content) of the element a [data-copy] button names.
  function copyButton(button, status) {
    button.addEventListener('click', function () {
      var target = document.getElementById(button.getAttribute('data-copy'));
      var text = target.value !== undefined ? target.value : target.getAttribute('data-text') || target.textContent;
      function done(ok) {
        status.textContent = ok ? 'Copied.' : 'Copying failed: select the text and copy it.';
        status.className = ok ? 'copy-status' : 'copy-status error';
      }
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(false); });
      } else {
        done(false);
      }
    });
  }

  function enrolAgent(form) {
    var card = document.getElementById('enrol-agent-card');
    var result = document.getElementById('enrol-result');
    var status = document.getElementById('enrol-agent-status');
    var copied = result.querySelector('[data-copy-status]');
    var fingerprint = card.getAttribute('data-ca-fingerprint');

    result.querySelectorAll('button[data-copy]').forEach(function (button) {
      copyButton(button, copied);
    });

    function show(agent) {
      result.querySelector('[data-enrol="name"]').textContent = agent.name;
      document.getElementById('enrol-token').value = agent.token;
      // one block per command (a wrapped line hangs under its command); Copy takes the lines as text
      var commands = document.getElementById('enrol-commands');
      var lines = enrolCommands(window.location.origin, agent, fingerprint);
      commands.textContent = '';
      commands.setAttribute('data-text', lines);
      lines.split('\n').forEach(function (line) {
        var command = document.createElement('span');
        command.className = 'command';
        command.textContent = line;
        commands.appendChild(command);
      });
      copied.textContent = '';
      result.hidden = false;
    }

    form.addEventListener('submit', function (event) {
      event.preventDefault();
      clearErrors(form);
      status.textContent = '';
      status.className = 'form-status';
      var name = input(form, 'name').value.trim();
      var problem = checkName(name);
      if (problem) {
        fieldError(form, 'name', problem);
        input(form, 'name').focus();
        return;
      }
      busy(form, true);
      window.svc.api('/api/v1/agents', { method: 'POST', json: { name: name } }).then(function (response) {
        if (response.ok) {
          return response.json().then(function (agent) {
            show(agent);
            addAgentRow(agent);
            input(form, 'name').value = '';
            status.textContent = 'Agent ' + agent.name + ' provisioned.';
            status.className = 'form-status ok';
          });
        }
        // the one field: a refusal (a name taken, or one the API will not take) is the name's
        return apiError(response).then(function (text) {
          fieldError(form, 'name', text);
          input(form, 'name').focus();
        });
      }).catch(function () {
        status.textContent = 'The server could not be reached; no agent was provisioned.';
        status.className = 'form-status error';
      }).then(function () {
        busy(form, false);
      });
    });
  }

  // --- Create Test Agent ---

  function createTestAgent(form) {
    var message = document.getElementById('create-test-agent-error');

    function validate() {
      var errors = {};
      var nameProblem = checkName(input(form, 'name').value.trim());
      if (nameProblem) {
        errors.name = nameProblem;
      }
      ['gpu_count', 'ram_gb'].forEach(function (key) {
        var field = input(form, key);
        var problem = checkInteger(field.value, field.getAttribute('data-label'),
          parseInt(field.getAttribute('data-min'), 10), parseInt(field.getAttribute('data-max'), 10));
        if (problem) {
          errors[key] = problem;
        }
      });
      if (input(form, 'environment_type').value.trim().length > 64) {
        errors.environment_type = 'Environment type must be at most 64 characters.';
      }
      return errors;
    }

    function body() {
      var json = {
        name: input(form, 'name').value.trim(),
        gpu_count: parseInt(input(form, 'gpu_count').value.trim(), 10),
        cpu_arch: input(form, 'cpu_arch').value,
        ram_gb: parseInt(input(form, 'ram_gb').value.trim(), 10)
      };
      ['gpu_info', 'cpu_info', 'environment_type'].forEach(function (key) {
        var value = input(form, key).value.trim();
        if (value !== '') {
          json[key] = value;
        }
      });
      return json;
    }

    form.addEventListener('submit', function (event) {
      event.preventDefault();
      clearErrors(form);
      message.textContent = '';
      var errors = validate();
      var names = Object.keys(errors);
      if (names.length) {
        names.forEach(function (name) {
          fieldError(form, name, errors[name]);
        });
        message.textContent = names.map(function (name) {
          return errors[name];
        }).join(' ');
        input(form, names[0]).focus();
        return;
      }
      busy(form, true);
      window.svc.api('/api/v1/agents/test', { method: 'POST', json: body() }).then(function (response) {
        if (response.ok) {
          return response.json().then(function (agent) {
            window.location.assign('/agents/' + encodeURIComponent(agent.id));
          });
        }
        return apiError(response).then(function (text) {
          message.textContent = text;
          var field = fieldOfApiError(form, text);
          if (field) {
            fieldError(form, field, text);
          }
          busy(form, false);
        });
      }).catch(function () {
        message.textContent = 'The server could not be reached; the agent was not created.';
        busy(form, false);
      });
    });
  }

  // --- an agent's Settings card ---

  var PATH_SETTINGS = { model_storage_dir: 'Model storage directory', model_share_mount: 'NFS mount point' };

  function agentSettings(form) {
    var status = document.getElementById('agent-settings-status');
    var id = form.getAttribute('data-agent-id');

    // The settings this form shows, checked as the API checks them (AgentSettings.validate).
    function collect() {
      var values = {};
      var errors = {};
      Array.prototype.forEach.call(form.elements, function (field) {
        var key = field.name;
        if (!key) {
          return;
        }
        if (field.type === 'checkbox') {
          values[key] = field.checked;
          return;
        }
        var value = field.value.trim();
        if (key === 'heartbeat_interval_s') {
          var problem = checkInteger(value, 'Heartbeat interval', parseInt(field.getAttribute('data-min'), 10),
            parseInt(field.getAttribute('data-max'), 10));
          if (problem) {
            errors[key] = problem;
          } else {
            values[key] = parseInt(value, 10);
          }
          return;
        }
        if (value.length > 4096) {
          errors[key] = 'At most 4096 characters.';
        } else if (PATH_SETTINGS[key] && value !== '' && value[0] !== '/' && value[0] !== '~') {
          errors[key] = PATH_SETTINGS[key] + ' must be an absolute path (starting with / or ~).';
        } else if (key === 'model_share_source' && value !== '' && !/^[^\s:\/]+:\/\S*$/.test(value)) {
          errors[key] = 'NFS share source must have the form host:/path.';
        }
        values[key] = value;
      });
      return { values: values, errors: errors };
    }

    function show(settings) {
      Object.keys(settings).forEach(function (key) {
        var field = input(form, key);
        if (!field) {
          return;
        }
        if (field.type === 'checkbox') {
          field.checked = String(settings[key]) === 'true';
        } else {
          field.value = settings[key];
        }
      });
    }

    form.addEventListener('submit', function (event) {
      event.preventDefault();
      clearErrors(form);
      status.className = 'form-status';
      var collected = collect();
      var names = Object.keys(collected.errors);
      if (names.length) {
        names.forEach(function (name) {
          fieldError(form, name, collected.errors[name]);
        });
        status.textContent = collected.errors[names[0]];
        status.className = 'form-status error';
        return;
      }
      status.textContent = 'Saving…';
      busy(form, true);
      window.svc.api('/api/v1/agents/' + encodeURIComponent(id) + '/settings', { method: 'PUT', json: collected.values })
        .then(function (response) {
          if (response.ok) {
            return response.json().then(function (settings) {
              show(settings);
              status.textContent = 'Saved. The agent receives them with its next heartbeat.';
              status.className = 'form-status ok';
            });
          }
          return apiError(response).then(function (text) {
            var field = fieldOfApiError(form, text);
            if (field) {
              fieldError(form, field, text);
            }
            status.textContent = text;
            status.className = 'form-status error';
          });
        }).catch(function () {
          status.textContent = 'The server could not be reached; nothing was saved.';
          status.className = 'form-status error';
        }).then(function () {
          busy(form, false);
        });
    });
  }

  // --- an agent's Storage card ---

  function storageCleanup(form) {
    var status = document.getElementById('cleanup-status');
    var id = form.getAttribute('data-agent-id');
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var path = input(form, 'model_path').value.trim();
      status.textContent = 'Queuing…';
      status.className = 'form-status';
      busy(form, true);
      window.svc.api('/api/v1/agents/' + encodeURIComponent(id) + '/cleanup', { method: 'POST', json: { model_path: path } })
        .then(function (response) {
          if (response.ok) {
            return response.json().then(function (reply) {
              status.textContent = 'Cleanup command queued (' + reply.command_id + '); the agent runs it after its next heartbeat.';
              status.className = 'form-status ok';
            });
          }
          return apiError(response).then(function (text) {
            status.textContent = text;
            status.className = 'form-status error';
          });
        }).catch(function () {
          status.textContent = 'The server could not be reached; no cleanup was queued.';
          status.className = 'form-status error';
        }).then(function () {
          busy(form, false);
        });
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    var enrol = document.getElementById('enrol-agent');
    if (enrol) {
      enrolAgent(enrol);
    }
    var create = document.getElementById('create-test-agent');
    if (create) {
      createTestAgent(create);
    }
    var settings = document.getElementById('agent-settings');
    if (settings) {
      agentSettings(settings);
    }
    var cleanup = document.getElementById('cleanup-form');
    if (cleanup) {
      storageCleanup(cleanup);
    }
  });
})();
