// svc dashboard: /quicktest/new — model search, engines filtered by the agent's architecture,
// the compatibility verdict (blocking launch unless forced) and the launch through the API.
(function () {
  'use strict';

  const FORMAT_SOURCES = {
    catalog: 'from the catalog',
    file: 'from the file name',
    directory: 'a path without a weights file suffix is taken as a model directory'
  };

  document.addEventListener('DOMContentLoaded', function () {
    const form = document.getElementById('quicktest-form');
    if (!form) {
      return;
    }
    const agent = document.getElementById('agent');
    const path = document.getElementById('model-path');
    const engines = document.getElementById('engines');
    const unavailable = document.getElementById('engines-unavailable');
    const force = document.getElementById('force');
    const message = document.getElementById('compat-message');
    const modelFormat = document.getElementById('model-format');
    const launch = document.getElementById('launch');
    const hint = document.getElementById('launch-hint');
    const launchError = document.getElementById('launch-error');
    const verdicts = window.svc.compat.pageVerdicts();
    let sending = false;

    const picker = window.svc.modelPicker({
      search: document.getElementById('model-search'),
      list: document.getElementById('model-options'),
      none: form.querySelector('[data-model-none]'),
      onPick: function (item) {
        path.value = item.getAttribute('data-path');
        update();
      }
    });

    function catalogItem(value) {
      return picker.items.find(function (item) { return item.getAttribute('data-path') === value; });
    }

    function chosenEngine() {
      const radio = engines.querySelector('input[name="engine_name"]:checked');
      return radio ? radio.value : '';
    }

    function update() {
      const model = path.value.trim();
      const item = catalogItem(model);
      const engine = chosenEngine();
      const detected = window.svc.compat.formatsOfModel(model, item ? window.svc.modelFormatsOf(item) : []);
      picker.items.forEach(function (option) {
        option.setAttribute('aria-selected', option === item ? 'true' : 'false');
      });
      modelFormat.textContent = detected.formats.length
        ? 'Format: ' + detected.formats.join(' or ') + ' (' + FORMAT_SOURCES[detected.from] + ')' : '';
      engines.querySelectorAll('label.engine-option').forEach(function (label) {
        const input = label.querySelector('input');
        const verdict = window.svc.compat.formatVerdict(verdicts, input.value, detected.formats);
        label.classList.toggle('incompatible', !!model && !verdict.compatible);
        label.title = model && !verdict.compatible ? verdict.reason : '';
      });
      const verdict = model && engine ? window.svc.compat.formatVerdict(verdicts, engine, detected.formats)
        : { compatible: true, reason: null };
      if (verdict.compatible) {
        message.textContent = '';
        message.classList.remove('blocked', 'forced');
      } else {
        const why = verdict.reason + (detected.from === 'directory' ? ' (' + FORMAT_SOURCES.directory + ').' : '.');
        message.textContent = force.checked ? 'Forced despite: ' + why : 'Incompatible: ' + why
          + ' Choose another engine or model, or override with force.';
        message.classList.toggle('blocked', !force.checked);
        message.classList.toggle('forced', force.checked);
      }
      const missing = !agent.value ? 'Choose an agent.' : !model ? 'Choose or type a model.'
        : !engine ? 'Choose an engine.' : '';
      hint.textContent = missing;
      launch.disabled = sending || !!missing || (!verdict.compatible && !force.checked);
    }

    // Lists the engines the agent's architecture can run; the others are named with the reason.
    function renderEngines(api) {
      const chosen = chosenEngine();
      engines.querySelectorAll('label.engine-option').forEach(function (label) { label.remove(); });
      unavailable.textContent = '';
      Object.keys(api.engineFormats).forEach(function (name) {
        const platform = window.svc.compat.platformVerdict(api.capabilities, agent.value, name);
        if (!platform.compatible) {
          const note = document.createElement('li');
          note.setAttribute('data-engine', name);
          note.textContent = platform.reason;
          unavailable.appendChild(note);
          return;
        }
        const label = document.createElement('label');
        label.className = 'engine-option';
        const input = document.createElement('input');
        input.type = 'radio';
        input.name = 'engine_name';
        input.value = name;
        input.checked = name === chosen;
        label.appendChild(input);
        window.svc.compat.engineLabel(label, name, api.engineFormats[name]);
        engines.appendChild(label);
      });
      engines.setAttribute('data-agent', agent.value);
      update();
    }

    const loaded = window.svc.compat.load();
    loaded.then(function (api) {
      if (engines.getAttribute('data-agent') !== agent.value) {
        renderEngines(api); // the browser restored another agent than the one the server listed engines for
      }
    }).catch(function (err) {
      hint.textContent = 'Could not load the engine capabilities (' + err.message + ').';
    });
    agent.addEventListener('change', function () {
      loaded.then(renderEngines).catch(function () {
        // without the capabilities, let the server list the engines for this agent
        window.location.assign('/quicktest/new?agent_id=' + encodeURIComponent(agent.value));
      });
      update();
    });
    path.addEventListener('input', update);
    engines.addEventListener('change', update);
    force.addEventListener('change', update);

    form.addEventListener('submit', function (event) {
      event.preventDefault();
      update();
      if (launch.disabled) {
        return;
      }
      const body = {
        agent_id: agent.value,
        model_path: path.value.trim(),
        engine_name: chosenEngine(),
        benchmark_name: document.getElementById('benchmark').value,
        force: force.checked
      };
      const suite = document.getElementById('suite').value.trim();
      if (suite) {
        body.suite_name = suite;
      }
      sending = true;
      launchError.hidden = true;
      update();
      window.svc.post('/api/v1/quicktest', body)
        .then(function (answer) {
          if (!answer.id) {
            throw new Error('The server did not say which test it queued');
          }
          window.location.assign('/quicktest/' + encodeURIComponent(answer.id));
        })
        .catch(function (err) {
          sending = false;
          launchError.textContent = 'Not launched: ' + err.message;
          launchError.hidden = false;
          update();
        });
    });

    update();
  });
})();
