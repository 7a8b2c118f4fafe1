// svc models page: search as you type and set the catalog URL inline; the server renders the list,
// this script fetches the page again and swaps #models-view in place.
(function () {
  'use strict';

  var pending = null;
  var latest = 0;

  // Fetches /models with the given query and replaces #models-view with the server's rendering.
  function reload(query) {
    var ticket = ++latest;
    var url = '/models' + (query ? '?q=' + encodeURIComponent(query) : '');
    return window.svc.api(url, { headers: { Accept: 'text/html' } }).then(function (response) {
      if (!response.ok) {
        throw new Error('The server answered ' + response.status + '.');
      }
      return response.text();
    }).then(function (html) {
      if (ticket !== latest) {
        return;
      }
      var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById('models-view');
      var current = document.getElementById('models-view');
      if (fresh && current) {
        current.replaceWith(document.adoptNode(fresh));
        window.history.replaceState(null, '', url);
      }
    });
  }

  function search(input) {
    input.addEventListener('input', function () {
      window.clearTimeout(pending);
      pending = window.setTimeout(function () {
        reload(input.value.trim()).catch(function () {
          // the list stays as it was; submitting the form still searches without the script
        });
      }, 200);
    });
    input.form.addEventListener('submit', function (event) {
      event.preventDefault();
      window.clearTimeout(pending);
      reload(input.value.trim()).catch(function () {
        input.form.submit();
      });
    });
  }

  // The inline catalog URL form is re-rendered with the list, so its submit is handled by delegation.
  function catalogForm() {
    document.addEventListener('submit', function (event) {
      var form = event.target;
      if (!form || form.id !== 'catalog-url-form') {
        return;
      }
      event.preventDefault();
      var input = document.getElementById('catalog-url');
      var status = document.getElementById('catalog-url-status');
      var slot = form.querySelector('.field-error[data-error-for="catalog_url"]');
      var value = input.value.trim();
      var problem = value === '' ? 'Enter the catalog service URL (http:// or https://).'
        : window.svc.settings.check('catalog_url', value);
      slot.textContent = problem || '';
      if (problem) {
        input.setAttribute('aria-invalid', 'true');
        status.textContent = '';
        return;
      }
      input.removeAttribute('aria-invalid');
      status.textContent = 'Saving…';
      status.className = 'form-status';
      window.svc.settings.put({ catalog_url: value }).then(function (error) {
        if (error) {
          slot.textContent = error;
          status.textContent = error;
          status.className = 'form-status error';
          return;
        }
        var filter = document.getElementById('model-filter');
        return reload(filter ? filter.value.trim() : '');
      }).catch(function () {
        status.textContent = 'The server could not be reached; the URL was not saved.';
        status.className = 'form-status error';
      });
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    var filter = document.getElementById('model-filter');
    if (filter) {
      search(filter);
    }
    catalogForm();
  });
})();
