#!/usr/bin/env node
// The browser check of the pkgdown site (tools/check.sh site):
//   node tools/site-check.js SITE_DIR SHOT_DIR
// serves SITE_DIR (built by tools/site.sh) on 127.0.0.1, opens every HTML
// page in headless Chromium (Debian's, through playwright-core: see
// tools/package.json) and fails on a page that does not load, an image that
// does not render (naturalWidth 0), a link to a page or file of the site
// that does not exist, a console error (KaTeX's included), or math left as
// TeX (\( \[ or $$ in the text outside code). Requests to other
// hosts are refused (the check needs no network) and are not errors
// themselves. Saves screenshots of the home page, a reference page with a
// plot, an article and a reference page with a formula into SHOT_DIR. Ends
// with "site-check: PASS ..." or "site-check: FAIL ...".
'use strict';
const fs = require('fs');
const path = require('path');
const http = require('http');
const { chromium } = require('playwright-core');

const [siteArg, shotArg] = process.argv.slice(2);
if (!siteArg || !shotArg) {
  console.error('usage: node tools/site-check.js SITE_DIR SHOT_DIR');
  process.exit(2);
}
const site = path.resolve(siteArg);
const shots = path.resolve(shotArg);
// the pages photographed (one screen each, 1280 x 900): the home page, a
// reference page scrolled to its first plot, an article, a reference page
// scrolled to its first displayed formula
const SHOTS = [
  ['home.png', 'index.html', null],
  ['reference-plot.png', 'reference/plot.kernclass.html', 'main img'],
  ['article.png', 'articles/kernclass.html', null],
  ['reference-math.png', 'reference/kernel_svm.html', '.katex-display'],
];
const TYPES = {
  '.html': 'text/html', '.css': 'text/css', '.js': 'text/javascript', '.json': 'application/json',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.svg': 'image/svg+xml', '.ico': 'image/x-icon',
  '.woff': 'font/woff', '.woff2': 'font/woff2', '.ttf': 'font/ttf', '.xml': 'application/xml',
  '.txt': 'text/plain', '.md': 'text/markdown',
};

// the file a site path names (a directory: its index.html), or null
function fileOf(urlPath) {
  let p = path.join(site, decodeURIComponent(urlPath));
  if (!p.startsWith(site)) return null;
  if (fs.existsSync(p) && fs.statSync(p).isDirectory()) p = path.join(p, 'index.html');
  return fs.existsSync(p) ? p : null;
}

function htmlFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return htmlFiles(p);
    return e.name.endsWith('.html') ? [path.relative(site, p).split(path.sep).join('/')] : [];
  });
}

function chromiumPath() {
  // Debian's /usr/bin/chromium is a shell wrapper; the browser itself is here
  for (const p of [process.env.CHROMIUM, '/usr/lib/chromium/chromium', '/usr/bin/chromium']) {
    if (p && fs.existsSync(p)) return p;
  }
  throw new Error('no chromium: bash tools/setup.sh --deps-only --deep installs it');
}

async function main() {
  if (!fs.existsSync(path.join(site, 'index.html'))) throw new Error(`no site in ${site}`);
  fs.mkdirSync(shots, { recursive: true });
  const server = http.createServer((req, res) => {
    const file = fileOf(new URL(req.url, 'http://x').pathname);
    if (!file) { res.writeHead(404); res.end('not found'); return; }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.route('**/*', (route) =>
    route.request().url().startsWith(origin) ? route.continue() : route.abort('blockedbyclient'));

  const pages = htmlFiles(site).sort();
  const problems = [];
  const links = new Map();  // internal target path -> first page linking to it
  let images = 0;
  for (const rel of pages) {
    const page = await context.newPage();
    const errors = [];
    page.on('console', (m) => {
      // a refused request to another host is the check's doing, not the
      // page's; of a message, the first line (KaTeX's go on with a stack trace)
      if (m.type() === 'error' && !/ERR_BLOCKED_BY_CLIENT/.test(m.text())) {
        errors.push(m.text().split('\n')[0]);
      }
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('response', (r) => {
      if (r.url().startsWith(origin) && r.status() >= 400) errors.push(`${r.status()} ${r.url()}`);
    });
    let response;
    try {
      response = await page.goto(`${origin}/${rel}`, { waitUntil: 'load', timeout: 30000 });
    } catch (e) {
      problems.push(`${rel}: does not load (${e.message.split('\n')[0]})`);
      await page.close();
      continue;
    }
    if (!response || !response.ok()) problems.push(`${rel}: status ${response && response.status()}`);
    const found = await page.evaluate(() => ({
      broken: Array.from(document.images)
        .filter((i) => !i.complete || i.naturalWidth === 0)
        .map((i) => i.getAttribute('src')),
      count: document.images.length,
      hrefs: Array.from(document.querySelectorAll('a[href]')).map((a) => a.href),
      // math left as TeX (where KaTeX did not run, or could not typeset it,
      // see pkgdown/assets/kernclass-math.js): text outside code and outside
      // KaTeX's own output (which keeps the TeX) with \( \[ or $$ in it
      rawMath: (() => {
        const skip = 'pre, code, script, style, textarea, .katex';
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        const raw = [];
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const at = n.data.search(/\\\(|\\\[|\$\$/);
          if (at >= 0 && !n.parentElement.closest(skip)) {
            raw.push(n.data.slice(at, at + 50).replace(/\s+/g, ' '));
          }
        }
        return raw;
      })(),
    }));
    images += found.count;
    for (const src of found.broken) problems.push(`${rel}: image does not render: ${src}`);
    if (found.rawMath.length) {
      problems.push(`${rel}: math not typeset in ${found.rawMath.length} places, ` +
                    `the first: ${found.rawMath[0]}`);
    }
    for (const href of found.hrefs) {
      if (!href.startsWith(origin)) continue;
      const target = new URL(href).pathname;
      if (!links.has(target)) links.set(target, rel);
    }
    for (const e of errors) problems.push(`${rel}: console error: ${e}`);
    for (const [name, shotPage, scrollTo] of SHOTS) {
      if (shotPage !== rel) continue;
      if (scrollTo) {
        await page.evaluate((sel) => {
          const el = document.querySelector(sel);
          if (el) el.scrollIntoView({ block: 'center', behavior: 'instant' });
        }, scrollTo);
      }
      // the navigation bar's slide (headroom) and the table of contents'
      // marking of the section in view (scrollspy) to end, however loaded the
      // machine
      await page.waitForTimeout(500);
      await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished)));
      await page.waitForTimeout(500);
      await page.screenshot({ path: path.join(shots, name) });
    }
    await page.close();
  }
  for (const [target, from] of links) {
    if (!fileOf(target)) problems.push(`${from}: internal link does not resolve: ${target}`);
  }
  for (const [name, shotPage] of SHOTS) {
    if (!pages.includes(shotPage)) problems.push(`no page ${shotPage} for the screenshot ${name}`);
  }
  await browser.close();
  server.close();
  const what = `${pages.length} pages, ${images} images, ${links.size} internal links`;
  for (const p of problems) console.log(p);
  if (problems.length) {
    console.log(`site-check: FAIL (${problems.length} problems; ${what})`);
    process.exit(1);
  }
  console.log(`site-check: PASS (${what}); screenshots in ${shots}`);
}

main().catch((e) => {
  console.log(`site-check: FAIL (${e.message})`);
  process.exit(1);
});
