// Chromium's own trace of the page's main thread while the browser bench runs
// (scripts/bench-browser.sh starts it when DRIFT_DOCTOR_BENCH_TRACE=FILE):
//
//   node trace-page.js record PORT SECONDS FILE   trace the page served on 127.0.0.1
//   node trace-page.js summary FILE               what each report's arrival cost
//
// `record` waits for the page on the DevTools port, traces it for SECONDS and
// writes the trace events to FILE. `summary` prints, for every message the
// page received from its worker, the script time and the style, layout,
// pre-paint and paint work of the tasks that follow it within 40 ms, and the
// page's first layout. Numbers only; nothing is asserted.
'use strict';
const fs = require('fs');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function record(port, seconds, file) {
  let target;
  for (let i = 0; i < 300 && !target; i++) {
    try {
      const list = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
      target = list.find((t) => t.type === 'page' && t.url.startsWith('http://127.0.0.1'));
    } catch (_) {
      // The browser is not up yet.
    }
    if (!target) await sleep(100);
  }
  if (!target) throw new Error(`no page on the DevTools port ${port}`);
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  const events = [];
  const answers = new Map();
  let complete;
  const completed = new Promise((r) => (complete = r));
  let next = 0;
  const send = (method, params = {}) =>
    new Promise((r) => {
      const id = ++next;
      answers.set(id, r);
      ws.send(JSON.stringify({ id, method, params }));
    });
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.id && answers.has(msg.id)) answers.get(msg.id)(msg);
    if (msg.method === 'Tracing.dataCollected') events.push(...msg.params.value);
    if (msg.method === 'Tracing.tracingComplete') complete();
  };
  await new Promise((r) => (ws.onopen = r));
  await send('Tracing.start', {
    categories: 'devtools.timeline,disabled-by-default-devtools.timeline',
    transferMode: 'ReportEvents',
  });
  await sleep(seconds * 1000);
  await send('Tracing.end');
  await completed;
  fs.writeFileSync(file, JSON.stringify(events));
  ws.close();
}

function summary(file) {
  const events = JSON.parse(fs.readFileSync(file));
  const threads = new Map();
  for (const e of events) {
    if (e.name === 'thread_name') threads.set(`${e.pid}:${e.tid}`, e.args.name);
  }
  const isMain = (e) => threads.get(`${e.pid}:${e.tid}`) === 'CrRendererMain';
  const timed = events.filter((e) => e.ph === 'X' && isMain(e)).sort((a, b) => a.ts - b.ts);
  if (!timed.length) {
    console.log('no main-thread events in the trace');
    return;
  }
  const start = timed[0].ts;
  const tasks = timed.filter((e) => e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask');
  const inside = (task, name) =>
    timed
      .filter((e) => e.name === name && e.ts >= task.ts && e.ts + e.dur <= task.ts + task.dur)
      .reduce((sum, e) => sum + e.dur, 0) / 1000;
  const ms = (x) => x.toFixed(1);
  const firstLayout = tasks.find((t) => inside(t, 'Layout') > 5);
  if (firstLayout) {
    console.log(`first layout: ${ms(inside(firstLayout, 'Layout'))} ms layout, ${ms(inside(firstLayout, 'UpdateLayoutTree'))} ms style`);
  }
  const rendering = ['UpdateLayoutTree', 'Layout', 'PrePaint', 'Paint'];
  for (const task of tasks) {
    const script = inside(task, 'HandlePostMessage');
    if (script < 5) continue;
    const after = tasks.filter((t) => t.ts >= task.ts && t.ts < task.ts + task.dur + 40000);
    const parts = rendering.map((name) => after.reduce((sum, t) => sum + inside(t, name), 0));
    const total = parts.reduce((a, b) => a + b, 0);
    console.log(
      `message at ${ms((task.ts - start) / 1000)} ms: script ${ms(script)} ms, then rendering ${ms(total)} ms ` +
        `(style ${ms(parts[0])}, layout ${ms(parts[1])}, pre-paint ${ms(parts[2])}, paint ${ms(parts[3])})`,
    );
  }
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'record') {
  record(Number(args[0]), Number(args[1]), args[2]).catch((e) => {
    console.error(`trace-page: ${e.message}`);
    process.exit(1);
  });
} else if (mode === 'summary') {
  summary(args[0]);
} else {
  console.error('usage: trace-page.js record PORT SECONDS FILE | summary FILE');
  process.exit(2);
}
