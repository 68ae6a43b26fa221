#!/usr/bin/env node
// Runs an ONNX model file written by kernclass::write_onnx() in onnxruntime
// (npm's onnxruntime-node, found as node finds modules: NODE_PATH, or a
// node_modules folder above this file or the working directory):
//   node onnx-run.js model.onnx rows.csv out.csv
// rows.csv: a header line, then one row of numbers per point (the graph's
// input columns in order; NA or an empty field is NaN). out.csv: a header
// line, then per row the graph's outputs: "label", then the columns of its
// second output ("probabilities" or "scores"), named <output>_1, <output>_2, ...
// Numbers are written as the shortest decimals that read back as the same
// float. Exits with status 1 and a message on stderr on failure.
'use strict';

const fs = require('fs');

function fail(message) {
  process.stderr.write(`onnx-run: ${message}\n`);
  process.exit(1);
}

function splitLine(line) {
  // fields separated by commas, quoted with "..." where they hold commas or
  // quotes ("" a quote inside)
  const out = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') { field += '"'; i++; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { out.push(field); field = ''; }
    else field += c;
  }
  out.push(field);
  return out;
}

function readRows(path) {
  const lines = fs.readFileSync(path, 'utf8').split(/\r?\n/).filter((l) => l.length > 0);
  if (lines.length < 1) fail(`${path} has no header line`);
  const header = splitLine(lines[0]);
  const p = header.length;
  const n = lines.length - 1;
  const data = new Float32Array(n * p);
  for (let i = 0; i < n; i++) {
    const fields = splitLine(lines[i + 1]);
    if (fields.length !== p) fail(`${path}: row ${i + 1} has ${fields.length} fields, not ${p}`);
    for (let j = 0; j < p; j++) {
      const f = fields[j].trim();
      data[i * p + j] = f === '' || f === 'NA' ? NaN : Number(f);
    }
  }
  return { data, n, p };
}

function quote(s) {
  return `"${String(s).replace(/"/g, '""')}"`;
}

async function main() {
  const [modelPath, rowsPath, outPath] = process.argv.slice(2);
  if (!outPath) fail('usage: node onnx-run.js model.onnx rows.csv out.csv');
  let ort;
  try {
    ort = require('onnxruntime-node');
  } catch (e) {
    fail('npm\'s onnxruntime-node is not installed where node looks (set NODE_PATH)');
  }
  const session = await ort.InferenceSession.create(modelPath,
    { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const { data, n, p } = readRows(rowsPath);
  const input = new ort.Tensor('float32', data, [n, p]);
  const result = await session.run({ [session.inputNames[0]]: input });
  const names = session.outputNames;
  const label = result[names[0]].data;
  const second = result[names[1]];
  const width = n > 0 ? second.data.length / n : (second.dims[1] || 1);
  const header = [quote(names[0])];
  for (let j = 0; j < width; j++) header.push(quote(`${names[1]}_${j + 1}`));
  const lines = [header.join(',')];
  for (let i = 0; i < n; i++) {
    const row = [quote(label[i])];
    for (let j = 0; j < width; j++) row.push(String(second.data[i * width + j]));
    lines.push(row.join(','));
  }
  fs.writeFileSync(outPath, lines.join('\n') + '\n');
}

main().catch((e) => fail(e && e.message ? e.message : String(e)));
