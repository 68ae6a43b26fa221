// Typesets the site's math with KaTeX (loaded before this, from the site
// itself, by pkgdown/templates/in-header.html), so that all of it looks the
// same: the reference pages' TeX, which pkgdown writes as \(...\) and
// $$...$$, and the articles' MathML from pandoc, which keeps its TeX as an
// annotation. Errors show as KaTeX's red source text (tools/site-check.js
// fails on them).
document.addEventListener('DOMContentLoaded', function () {
  'use strict';
  var options = { throwOnError: false };
  document.querySelectorAll('math').forEach(function (m) {
    var tex = m.querySelector('annotation[encoding="application/x-tex"]');
    if (!tex) return;
    var span = document.createElement('span');
    options.displayMode = m.getAttribute('display') === 'block';
    katex.render(tex.textContent, span, options);
    m.replaceWith(span);
  });
  renderMathInElement(document.body, {
    delimiters: [
      { left: '$$', right: '$$', display: true },
      { left: '\\(', right: '\\)', display: false }
    ],
    throwOnError: false
  });
});
