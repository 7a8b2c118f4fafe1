// svc dashboard: compatibility look-ups for the run forms. The verdicts come from the server's
// Compatibility rules: per engine and format rendered into the page (#run-data), per agent and
// engine from GET /api/v1/quicktest/agent-capabilities. This file only looks them up.
(function () {
  'use strict';

  // A model path's format by its suffix, as dev.svc.engines.ModelFormats tells it; a path without
  // a weights suffix is a model directory (or repository id), which holds safetensors or pytorch weights.
  const SUFFIXES = [['.gguf', 'gguf'], ['.safetensors', 'safetensors'], ['.bin', 'pytorch'], ['.pt', 'pytorch'],
    ['.pth', 'pytorch']];
  const DIRECTORY_FORMATS = ['safetensors', 'pytorch'];

  function formatsOfPath(path) {
    const text = (path || '').trim().toLowerCase();
    if (!text) {
      return { formats: [], from: 'none' };
    }
    for (let i = 0; i < SUFFIXES.length; i++) {
      if (text.endsWith(SUFFIXES[i][0])) {
        return { formats: [SUFFIXES[i][1]], from: 'file' };
      }
    }
    return { formats: DIRECTORY_FORMATS.slice(), from: 'directory' };
  }

  // {formats, from: 'catalog'|'file'|'directory'|'none'} for a path, preferring the catalog's formats.
  function formatsOfModel(path, catalogFormats) {
    if (catalogFormats && catalogFormats.length) {
      return { formats: catalogFormats.slice(), from: 'catalog' };
    }
    return formatsOfPath(path);
  }

  function pageVerdicts() {
    const data = document.getElementById('run-data');
    try {
      return JSON.parse(data.getAttribute('data-compat')).format_verdicts || {};
    } catch (e) {
      return {};
    }
  }

  // {compatible, reason}: the engine loads the model when it loads any of its known formats.
  function formatVerdict(verdicts, engine, formats) {
    const table = verdicts[engine] || {};
    const known = formats.filter(function (f) { return table[f]; });
    if (!known.length) {
      return { compatible: true, reason: null }; // nothing to tell from; the agent checks on disk
    }
    for (let i = 0; i < known.length; i++) {
      if (table[known[i]].compatible) {
        return { compatible: true, reason: null };
      }
    }
    return { compatible: false, reason: table[known[0]].reason };
  }

  // {compatible, reason} of an engine on an agent, from the agent-capabilities answer.
  function platformVerdict(capabilities, agentId, engine) {
    const agent = capabilities && capabilities[agentId];
    const verdict = agent && agent.engines && agent.engines[engine];
    return verdict ? { compatible: !!verdict.compatible, reason: verdict.reason || null } : { compatible: true, reason: null };
  }

  function getJson(path) {
    return window.svc.api(path).then(function (response) {
      if (!response.ok) {
        throw new Error(path + ' answered ' + response.status);
      }
      return response.json();
    });
  }

  // Resolves with {capabilities, engineFormats} from the API.
  function load() {
    return Promise.all([getJson('/api/v1/quicktest/agent-capabilities'), getJson('/api/v1/quicktest/engine-formats')])
      .then(function (answers) {
        return { capabilities: answers[0], engineFormats: answers[1] };
      });
  }

  // Engine radio/checkbox label contents: name and one .badge-format per format.
  function engineLabel(label, name, formats) {
    const title = document.createElement('span');
    title.className = 'engine-name';
    title.textContent = name;
    label.appendChild(document.createTextNode(' '));
    label.appendChild(title);
    formats.forEach(function (format) {
      const badge = document.createElement('span');
      badge.className = 'badge badge-format';
      badge.textContent = format;
      label.appendChild(document.createTextNode(' '));
      label.appendChild(badge);
    });
  }

  window.svc = window.svc || {};
  window.svc.compat = {
    formatsOfModel: formatsOfModel,
    pageVerdicts: pageVerdicts,
    formatVerdict: formatVerdict,
    platformVerdict: platformVerdict,
    load: load,
    engineLabel: engineLabel
  };
})();
