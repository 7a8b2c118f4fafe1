// svc dashboard: /campaigns/new — the four-step wizard (agent, engines, models, compatibility
// matrix), then create and launch through the API.
(function () {
  'use strict';

  const LAST_STEP = 4;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined) {
      node.textContent = text;
    }
    return node;
  }

  function lastSegment(path) {
    const parts = path.replace(/[\\/]+$/, '').split(/[\\/]/);
    return parts[parts.length - 1] || path;
  }

  document.addEventListener('DOMContentLoaded', function () {
    const form = document.getElementById('campaign-form');
    if (!form) {
      return;
    }
    const steps = Array.prototype.slice.call(form.querySelectorAll('section[data-step]'));
    const labels = Array.prototype.slice.call(document.querySelectorAll('#wizard-steps [data-step-label]'));
    const back = document.getElementById('wizard-back');
    const next = document.getElementById('wizard-next');
    const wizardMessage = document.getElementById('wizard-message');
    const name = document.getElementById('campaign-name');
    const agent = document.getElementById('campaign-agent');
    const engineBox = document.getElementById('campaign-engines');
    const selected = document.getElementById('campaign-models');
    const selectedEmpty = document.getElementById('campaign-models-empty');
    const customPath = document.getElementById('campaign-custom-path');
    const matrix = document.getElementById('campaign-matrix');
    const force = document.getElementById('campaign-force');
    const compatMessage = document.getElementById('campaign-compat-message');
    const createLaunch = document.getElementById('campaign-create-launch');
    const verdicts = window.svc.compat.pageVerdicts();
    // the chosen models in order: {path, name, formats (from the catalog, may be empty)}
    const models = [];
    let step = 1;
    let sending = false;
    let capabilities = null;

    const picker = window.svc.modelPicker({
      search: document.getElementById('campaign-model-search'),
      list: document.getElementById('campaign-model-options'),
      none: steps[2].querySelector('[data-model-none]'),
      onPick: function (item) {
        const path = item.getAttribute('data-path');
        if (indexOf(path) >= 0) {
          removeModel(path);
        } else {
          addModel(path, item.getAttribute('data-id') || lastSegment(path), window.svc.modelFormatsOf(item));
        }
      }
    });

    function indexOf(path) {
      return models.findIndex(function (m) { return m.path === path; });
    }

    function addModel(path, label, formats) {
      if (!path || indexOf(path) >= 0) {
        return;
      }
      models.push({ path: path, name: label, formats: formats });
      renderModels();
    }

    function removeModel(path) {
      const at = indexOf(path);
      if (at >= 0) {
        models.splice(at, 1);
        renderModels();
      }
    }

    function renderModels() {
      selected.textContent = '';
      models.forEach(function (model) {
        const item = el('li');
        item.setAttribute('data-path', model.path);
        item.appendChild(el('span', 'model-id', model.name));
        if (model.name !== model.path) {
          item.appendChild(el('span', 'model-path', model.path));
        }
        const remove = el('button', 'button small', 'Remove');
        remove.type = 'button';
        remove.setAttribute('aria-label', 'Remove ' + model.name);
        remove.addEventListener('click', function () { removeModel(model.path); });
        item.appendChild(remove);
        selected.appendChild(item);
      });
      selectedEmpty.hidden = models.length > 0;
      picker.items.forEach(function (option) {
        const chosen = indexOf(option.getAttribute('data-path')) >= 0;
        option.setAttribute('aria-selected', chosen ? 'true' : 'false');
        option.classList.toggle('selected', chosen);
      });
    }

    function catalogFormats(path) {
      const item = picker.items.find(function (option) { return option.getAttribute('data-path') === path; });
      return item ? window.svc.modelFormatsOf(item) : [];
    }

    function addCustom() {
      const path = customPath.value.trim();
      if (path) {
        addModel(path, lastSegment(path), catalogFormats(path));
        customPath.value = '';
      }
    }

    function engineChoices() {
      return Array.prototype.slice.call(engineBox.querySelectorAll('input[type="checkbox"][name="engines"]'));
    }

    function chosenEngines() {
      return engineChoices().filter(function (box) { return box.checked && !box.disabled; })
        .map(function (box) { return box.value; });
    }

    function chosenBenchmarks() {
      return Array.prototype.slice.call(form.querySelectorAll('input[name="benchmarks"]:checked'))
        .map(function (box) { return box.value; });
    }

    // Engines the agent's architecture cannot run are disabled, unchecked and carry the reason.
    function applyPlatform() {
      if (!capabilities) {
        return;
      }
      engineChoices().forEach(function (box) {
        const verdict = window.svc.compat.platformVerdict(capabilities, agent.value, box.value);
        const label = box.closest('label');
        const warning = label.querySelector('.platform-warning');
        box.disabled = !verdict.compatible;
        label.classList.toggle('unavailable', !verdict.compatible);
        if (warning) {
          warning.remove();
        }
        if (!verdict.compatible) {
          box.checked = false;
          label.appendChild(el('span', 'platform-warning', verdict.reason));
        }
      });
    }

    function cellVerdict(model, engine) {
      const detected = window.svc.compat.formatsOfModel(model.path, model.formats);
      return window.svc.compat.formatVerdict(verdicts, engine, detected.formats);
    }

    // Builds the models × engines table; returns how many combinations are incompatible.
    function renderMatrix() {
      const engines = chosenEngines();
      const head = matrix.tHead;
      const body = matrix.tBodies[0];
      head.textContent = '';
      body.textContent = '';
      const top = el('tr');
      top.appendChild(el('th', null, 'Model'));
      engines.forEach(function (engine) { top.appendChild(el('th', null, engine)); });
      head.appendChild(top);
      let blocked = 0;
      models.forEach(function (model) {
        const row = el('tr');
        row.setAttribute('data-path', model.path);
        const title = el('th', null, model.name);
        title.title = model.path;
        row.appendChild(title);
        engines.forEach(function (engine) {
          const verdict = cellVerdict(model, engine);
          const cell = el('td', verdict.compatible ? 'cell-ok' : (force.checked ? 'cell-forced' : 'cell-blocked'),
            verdict.compatible ? 'compatible' : verdict.reason);
          cell.setAttribute('data-engine', engine);
          cell.setAttribute('data-compatible', String(verdict.compatible));
          if (!verdict.compatible) {
            blocked++;
          }
          row.appendChild(cell);
        });
        body.appendChild(row);
      });
      const runs = models.length * engines.length * chosenBenchmarks().length;
      document.getElementById('campaign-summary').textContent = models.length + ' model(s) × ' + engines.length
        + ' engine(s) × ' + chosenBenchmarks().length + ' benchmark(s) = ' + runs + ' run(s) on '
        + agent.options[agent.selectedIndex].text + '.';
      if (!blocked) {
        compatMessage.textContent = 'Every combination is compatible.';
      } else if (force.checked) {
        compatMessage.textContent = blocked + ' incompatible combination(s) will run anyway (force).';
      } else {
        compatMessage.textContent = blocked + ' incompatible combination(s): remove them in the earlier steps, '
          + 'or override with force.';
      }
      compatMessage.classList.toggle('blocked', blocked > 0 && !force.checked);
      compatMessage.classList.toggle('forced', blocked > 0 && force.checked);
      createLaunch.disabled = sending || (blocked > 0 && !force.checked);
      return blocked;
    }

    // Why the current step cannot be left forward, or '' when it can.
    function problem(at) {
      if (at === 1) {
        return !name.value.trim() ? 'Give the campaign a name.' : !agent.value ? 'Choose an agent.' : '';
      }
      if (at === 2) {
        return !chosenEngines().length ? 'Choose at least one engine.'
          : !chosenBenchmarks().length ? 'Choose at least one benchmark.' : '';
      }
      if (at === 3) {
        return !models.length ? 'Select at least one model.' : '';
      }
      return '';
    }

    function say(text) {
      wizardMessage.textContent = text;
      wizardMessage.hidden = !text;
    }

    function show(at) {
      step = at;
      steps.forEach(function (section) {
        section.hidden = Number(section.getAttribute('data-step')) !== at;
      });
      labels.forEach(function (label) {
        const n = Number(label.getAttribute('data-step-label'));
        label.classList.toggle('current', n === at);
        label.classList.toggle('done', n < at);
      });
      back.disabled = at === 1;
      if (at === 2) {
        applyPlatform(); // the agent may have been chosen without a change event
      }
      next.hidden = at === LAST_STEP;
      if (at === LAST_STEP) {
        renderMatrix();
      }
      say('');
    }

    next.addEventListener('click', function () {
      const why = problem(step);
      if (why) {
        say(why);
        return;
      }
      show(Math.min(LAST_STEP, step + 1));
    });
    back.addEventListener('click', function () {
      show(Math.max(1, step - 1));
    });
    form.addEventListener('submit', function (event) {
      event.preventDefault(); // Enter in a field moves on instead of submitting
      if (!next.hidden) {
        next.click();
      }
    });
    agent.addEventListener('change', applyPlatform);
    force.addEventListener('change', renderMatrix);
    document.getElementById('campaign-add-path').addEventListener('click', addCustom);
    customPath.addEventListener('keydown', function (event) {
      if (event.key === 'Enter') {
        event.preventDefault();
        addCustom();
      }
    });

    createLaunch.addEventListener('click', function () {
      for (let at = 1; at < LAST_STEP; at++) {
        const why = problem(at);
        if (why) {
          show(at);
          say(why);
          return;
        }
      }
      if (renderMatrix() > 0 && !force.checked) {
        return;
      }
      const suite = document.getElementById('campaign-suite').value.trim();
      const config = {
        models: models.map(function (m) { return { name: m.name, path: m.path }; }),
        engines: chosenEngines().map(function (engine) { return { name: engine }; }),
        benchmarks: chosenBenchmarks(),
        force: force.checked
      };
      if (suite) {
        config.suite_name = suite;
      }
      sending = true;
      createLaunch.disabled = true;
      say('');
      let created = null;
      window.svc.post('/api/v1/campaigns', {
        name: name.value.trim(),
        description: document.getElementById('campaign-description').value.trim(),
        agent_id: agent.value,
        config: config
      }).then(function (campaign) {
        created = campaign;
        return window.svc.post('/api/v1/campaigns/' + encodeURIComponent(campaign.id) + '/launch', {});
      }).then(function () {
        window.location.assign('/campaigns/' + encodeURIComponent(created.id));
      }).catch(function (err) {
        sending = false;
        if (created) {
          // created but not launched: its page says so and offers to launch it
          window.location.assign('/campaigns/' + encodeURIComponent(created.id));
          return;
        }
        say('Not created: ' + err.message);
        renderMatrix();
      });
    });

    window.svc.compat.load().then(function (api) {
      capabilities = api.capabilities;
      applyPlatform();
    }).catch(function (err) {
      say('Could not load the engine capabilities (' + err.message + '); the server still checks on create.');
    });
    renderModels();
    show(1);
  });
})();
