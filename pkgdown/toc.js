/* kernclass's own table of contents script for its pkgdown site.
 * pkgdown (>= 2.1) bundles bootstrap-toc 1.0.1, which neither npm nor Debian
 * carries, so a fresh machine without a CDN could not build the site.
 * tools/site.R puts this file where pkgdown looks for that one; pkgdown.js
 * calls it as Toc.init({$nav, $scope}) once the page has loaded.
 * It fills $nav with a list of links to the headings in $scope (jQuery
 * objects): the top level is the highest heading level used more than once,
 * the level below it is nested under its heading (Bootstrap 5 markup, so that
 * pkgdown's scrollspy marks the section in view and its CSS shows the nested
 * links of the active one). Headings marked data-toc-skip are left out, and a
 * heading without an id gets one from its text. */
(function () {
  'use strict';

  function headingId(h) {
    if (h.id) return h.id;
    var base = h.textContent.trim().toLowerCase()
      .replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64) ||
      h.tagName.toLowerCase();
    var id = base;
    for (var k = 1; document.getElementById(id); k++) id = base + '-' + k;
    h.id = id;
    return id;
  }

  function list() {
    var ul = document.createElement('ul');
    ul.className = 'nav nav-pills flex-column';
    return ul;
  }

  function item(h) {
    var li = document.createElement('li');
    li.className = 'nav-item';
    var a = document.createElement('a');
    a.className = 'nav-link';
    a.href = '#' + headingId(h);
    a.textContent = h.getAttribute('data-toc-text') || h.textContent.trim();
    li.appendChild(a);
    return li;
  }

  function init(opts) {
    var nav = opts.$nav && opts.$nav[0];
    if (!nav) return;
    var heads = Array.prototype.filter.call(opts.$scope || [], function (h) {
      return /^H[1-6]$/.test(h.tagName) && !h.hasAttribute('data-toc-skip');
    });
    var level = function (h) { return Number(h.tagName.charAt(1)); };
    var count = [0, 0, 0, 0, 0, 0, 0];
    heads.forEach(function (h) { count[level(h)]++; });
    var top = 0;
    for (var l = 1; l <= 6 && !top; l++) if (count[l] > 1) top = l;
    if (!top) top = heads.length ? Math.min.apply(null, heads.map(level)) : 1;

    var root = list(), parent = null;
    heads.forEach(function (h) {
      if (level(h) === top) {
        parent = item(h);
        root.appendChild(parent);
      } else if (level(h) === top + 1 && parent) {
        var sub = parent.querySelector('ul');
        if (!sub) parent.appendChild(sub = list());
        sub.appendChild(item(h));
      }
    });
    nav.appendChild(root);
  }

  window.Toc = { init: init };
})();
