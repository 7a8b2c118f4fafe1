// svc dashboard: the searchable model list shared by the quick test form and the campaign wizard.
// Matching: the query is split on spaces and every term must match the model, case-insensitively,
// either as a plain substring of its id or path, or fuzzily: the term's characters appear in order
// in its id or in the last segment of its path ("l38b" finds "llama-3-8b").
(function () {
  'use strict';

  function subsequence(term, text) {
    let at = 0;
    for (let i = 0; i < text.length && at < term.length; i++) {
      if (text[i] === term[at]) {
        at++;
      }
    }
    return at === term.length;
  }

  function lastSegment(path) {
    const parts = path.replace(/[\\/]+$/, '').split(/[\\/]/);
    return parts[parts.length - 1] || path;
  }

  function matches(item, terms) {
    const id = (item.getAttribute('data-id') || '').toLowerCase();
    const path = (item.getAttribute('data-path') || '').toLowerCase();
    const name = lastSegment(path);
    return terms.every(function (term) {
      return id.indexOf(term) >= 0 || path.indexOf(term) >= 0 || subsequence(term, id) || subsequence(term, name);
    });
  }

  // The formats the catalog lists for a model item (data-formats="gguf safetensors").
  function formatsOf(item) {
    return (item.getAttribute('data-formats') || '').split(/\s+/).filter(Boolean);
  }

  // opts: {search: input, list: ul, none: element shown when nothing matches, onPick(item)}
  function modelPicker(opts) {
    const items = Array.prototype.slice.call(opts.list.querySelectorAll('li[data-path]'));

    function visible() {
      return items.filter(function (item) { return !item.hidden; });
    }

    function filter() {
      const terms = opts.search.value.toLowerCase().split(/\s+/).filter(Boolean);
      let shown = 0;
      items.forEach(function (item) {
        item.hidden = !matches(item, terms);
        if (!item.hidden) {
          shown++;
        }
      });
      if (opts.none) {
        opts.none.hidden = shown > 0 || items.length === 0;
      }
    }

    function pick(item) {
      if (item && !item.hidden) {
        opts.onPick(item);
      }
    }

    function move(from, step) {
      const list = visible();
      if (!list.length) {
        return;
      }
      const at = list.indexOf(from);
      const next = at < 0 ? list[0] : list[Math.max(0, Math.min(list.length - 1, at + step))];
      next.focus();
    }

    opts.search.addEventListener('input', filter);
    opts.search.addEventListener('keydown', function (event) {
      if (event.key === 'ArrowDown') {
        event.preventDefault();
        move(null, 1);
      } else if (event.key === 'Enter') {
        event.preventDefault(); // never submit the form from the search box
        const list = visible();
        if (list.length === 1) {
          pick(list[0]);
        }
      }
    });
    opts.list.addEventListener('click', function (event) {
      pick(event.target.closest('li[data-path]'));
    });
    opts.list.addEventListener('keydown', function (event) {
      const item = event.target.closest('li[data-path]');
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        move(item, event.key === 'ArrowDown' ? 1 : -1);
      } else if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        pick(item);
      }
    });
    filter();
    return { items: items, filter: filter };
  }

  window.svc = window.svc || {};
  window.svc.modelPicker = modelPicker;
  window.svc.modelFormatsOf = formatsOf;
})();
