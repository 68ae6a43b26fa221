// Typesets the site's math with KaTeX (loaded before this, from the site
// itself, by pkgdown/templates/in-header.html), so that all of it looks the
// same: the reference pages' TeX, which pkgdown writes as \(...\) and
// $$...$$, and the articles' MathML from pandoc, which keeps its TeX as an
// annotation. A formula KaTeX cannot typeset (an unknown command included)
// stays as it was, TeX or MathML, with a console error, on which
// tools/site-check.js fails.
document.addEventListener('DOMContentLoaded', function () {
  'use strict';
  document.querySelectorAll('math').forEach(function (m) {
    var tex = m.querySelector('annotation[encoding="application/x-tex"]');
    if (!tex) return;
    var span = document.createElement('span');
    try {
      katex.render(tex.textContent, span, { displayMode: m.getAttribute('display') === 'block' });
      m.replaceWith(span);
    } catch (e) {
      console.error('KaTeX: ' + e.message);
    }
  });
  renderMathInElement(document.body, {
    delimiters: [
      { left: '$$', right: '$$', display: true },
      { left: '\\(', right: '\\)', display: false }
    ]
  });
});
