/* checkbench report. Every piece of run data is untrusted: it reaches the page only as text
   (textContent, Text nodes, setAttribute on inert attributes), never as markup. */
'use strict';
(async function () {
  const read = (id) => JSON.parse(document.getElementById(id).textContent);
  const DATA = read('cb-data');
  const SERVED = DATA.mode === 'served';
  const IDX = DATA.index;
  const ITEMS = IDX.items;
  const MODELS = IDX.models;
  const JUDGES = IDX.judges;
  const TAGS = IDX.tags;
  const BOARDS = DATA.leaderboards || [];
  const FACTS = DATA.facts;
  const PAGE_SIZE = 50;
  const PASS = 1, FAIL = 2, UNSCORED = 4, ERROR = 8;
  const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#59a14f', '#b07aa1',
    '#76b7b2', '#edc948', '#9c755f', '#ff9da7', '#5f6b7a'];
  const SHAPES = ['circle', 'square', 'triangle', 'diamond'];
  const SVGNS = 'http://www.w3.org/2000/svg';

  // ------------------------------------------------------------------ DOM helpers
  function setProps(node, props) {
    if (!props) return node;
    for (const [key, value] of Object.entries(props)) {
      if (value == null || value === false) continue;
      if (key === 'class') node.classList.add(...String(value).split(' ').filter(Boolean));
      else if (key === 'style') Object.assign(node.style, value);
      else if (key === 'text') node.textContent = String(value);
      else if (key.startsWith('on') && typeof value === 'function') {
        node.addEventListener(key.slice(2), value);
      } else node.setAttribute(key, value === true ? '' : String(value));
    }
    return node;
  }
  function fill(node, kids) {
    for (const kid of kids.flat(Infinity)) {
      if (kid == null || kid === false) continue;
      node.append(kid instanceof Node ? kid : String(kid));
    }
    return node;
  }
  /** An HTML element: h('div.a.b', {props}, ...children); strings become Text nodes. */
  function h(tag, props, ...kids) {
    const [name, ...classes] = tag.split('.');
    const node = document.createElement(name || 'div');
    if (classes.length) node.className = classes.join(' ');
    return fill(setProps(node, props), kids);
  }
  /** An SVG element, same calling convention. */
  function s(tag, props, ...kids) {
    return fill(setProps(document.createElementNS(SVGNS, tag), props), kids);
  }
  const debounce = (fn, ms) => {
    let timer = 0;
    return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
  };

  /** Text with its Markdown code marked up as code, still as text only: fenced blocks
      (``` or ~~~) and `inline code` go into <code> elements, fences and backticks kept, so the
      node's textContent is exactly `text`. */
  function codeText(text) {
    const out = [];
    const inline = (part) => {
      let last = 0;
      for (const m of part.matchAll(/`([^`\n]+)`/g)) {
        if (m.index > last) out.push(part.slice(last, m.index));
        out.push(h('code.inline', null, h('span.tick', null, '`'), m[1], h('span.tick', null, '`')));
        last = m.index + m[0].length;
      }
      if (last < part.length) out.push(part.slice(last));
    };
    const lines = text.split(/(?<=\n)/);
    let prose = '';
    for (let i = 0; i < lines.length; i++) {
      const open = /^ {0,3}(`{3,}|~{3,})[^`]*$/.exec(lines[i].replace(/\n$/, ''));
      if (!open) { prose += lines[i]; continue; }
      inline(prose);
      prose = '';
      const fence = open[1];
      const close = new RegExp('^ {0,3}' + fence[0] + '{' + fence.length + ',}\\s*$');
      const block = h('code.block', null, h('span.fence', null, lines[i]));
      let body = '';
      for (i++; i < lines.length && !close.test(lines[i].replace(/\n$/, '')); i++) body += lines[i];
      if (body) block.append(body);
      if (i < lines.length) block.append(h('span.fence', null, lines[i]));
      out.push(block);
    }
    inline(prose);
    return out;
  }

  /** A name (model or judge id) with places to wrap after / : # @ marked by <wbr>: it
      wraps whole at its own joints rather than mid-word, and its text stays the same. */
  function breakable(name) {
    return String(name).split(/(?<=[/:#@])/).flatMap((part, i) => (i ? [h('wbr'), part] : [part]));
  }

  // ------------------------------------------------------------------ formatting
  const f2 = (v) => (v == null ? '–' : v.toFixed(2));
  const f3 = (v) => (v == null ? '–' : v.toFixed(3));
  const count = (v) => (v == null ? '–' : Number(v).toLocaleString('en-US'));
  // The one notation of a statistic and its 95% interval (docs/protocols.md, section 0): scores 0-100 as
  // 57.50 [52.1, 63.0], rates as 0.842 [0.71, 0.95]; [n too small] where there is no interval.
  const interval = (low, high, digits = 2) => (low == null || high == null ? '[n too small]'
    : '[' + low.toFixed(digits - 1) + ', ' + high.toFixed(digits - 1) + ']');
  const ciText = (value, ci) => (value == null ? '' : interval(ci && ci[0], ci && ci[1]));
  const pct = (v) => (v == null ? '–' : f2(v * 100));
  // A signed number: + above zero, the minus sign U+2212 below (not a hyphen), none at zero.
  const signed = (v, digits = 2) => {
    if (v == null) return '–';
    const shown = Math.abs(v).toFixed(digits);
    return (Number(shown) === 0 ? '' : v > 0 ? '+' : '\u2212') + shown;
  };
  const signedInterval = (low, high, digits = 2) => (low == null || high == null ? '[n too small]'
    : '[' + signed(low, digits - 1) + ', ' + signed(high, digits - 1) + ']');
  const plural = (n, word) => count(n) + ' ' + word + (n === 1 ? '' : 's');
  const money = (v) => (v == null ? '–' : '$' + (v < 0.01 && v > 0 ? v.toPrecision(2) : v.toFixed(2)));
  const seconds = (v) => (v < 90 ? v.toFixed(1) + ' s' : v < 5400 ? (v / 60).toFixed(1) + ' min'
    : (v / 3600).toFixed(1) + ' h');
  const humanize = (key) => ({
    task: 'Task', subtask: 'Subtask', feedback_type: 'Feedback type', deficiency: 'Deficiency type',
    all: 'All items', EC: 'Error correction', RM: 'Response maintenance',
  }[key] || key.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase()));

  // Model colours. Up to ten models: the Tableau 10 palette, round markers. More: one colour
  // per model from an OKLCH hue wheel, in tiers of at most ten hues; each tier has its own
  // lightness and marker shape, so no two models share colour and shape, and models of one
  // shape are at least 36° of hue apart.
  function oklch(L, C, hue) {
    const toSrgb = (c) => (c <= 0.0031308 ? 12.92 * c : 1.055 * Math.pow(c, 1 / 2.4) - 0.055);
    for (let chroma = C; ; chroma -= 0.005) {
      const a = chroma * Math.cos(hue * Math.PI / 180), b = chroma * Math.sin(hue * Math.PI / 180);
      const l = Math.pow(L + 0.3963377774 * a + 0.2158037573 * b, 3);
      const m = Math.pow(L - 0.1055613458 * a - 0.0638541728 * b, 3);
      const s3 = Math.pow(L - 0.0894841775 * a - 1.2914855480 * b, 3);
      const rgb = [4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s3,
        -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s3,
        -0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s3];
      if (chroma <= 0 || rgb.every((c) => c >= 0 && c <= 1)) {
        return '#' + rgb.map((c) => Math.round(Math.max(0, Math.min(1, toSrgb(c))) * 255)
          .toString(16).padStart(2, '0')).join('');
      }
    }
  }
  const styleIndex = new Map();
  for (const name of [...MODELS, ...FACTS.usage.map((u) => u.model)]) {
    if (!styleIndex.has(name)) styleIndex.set(name, styleIndex.size);
  }
  const MODEL_STYLES = (() => {
    const n = styleIndex.size;
    if (n <= PALETTE.length) return PALETTE.map((color) => ({ color, shape: 'circle' }));
    const tiers = Math.ceil(n / 10), hues = Math.ceil(n / tiers);
    const light = [0.6, 0.45, 0.75, 0.53];
    return Array.from({ length: n }, (_, i) => {
      const tier = Math.floor(i / hues), j = i % hues;
      const hue = 20 + (j + tier / tiers) * 360 / hues;
      return { color: oklch(light[tier % 4], 0.15, hue), shape: SHAPES[tier % SHAPES.length] };
    });
  })();
  function styleOf(model) {
    if (!styleIndex.has(model)) styleIndex.set(model, styleIndex.size);
    return MODEL_STYLES[styleIndex.get(model) % MODEL_STYLES.length];
  }
  const colorOf = (model) => styleOf(model).color;
  /** The model's marker: its colour in its shape. */
  const dot = (model) => {
    const st = styleOf(model);
    return h('span.dot', { class: 'shape-' + st.shape, 'data-shape': st.shape, style: { background: st.color } });
  };
  /** The same marker in SVG, centred on (cx, cy), r its radius. */
  function svgDot(model, cx, cy, r, props) {
    const { color, shape } = styleOf(model);
    const common = { fill: color, stroke: '#fff', 'stroke-width': 1.5, 'data-shape': shape, ...props };
    if (shape === 'circle') return s('circle', { cx, cy, r, ...common });
    const k = shape === 'square' ? r * 0.9 : r * 1.25;
    const d = shape === 'square' ? `M${cx - k},${cy - k}h${2 * k}v${2 * k}h${-2 * k}Z`
      : shape === 'triangle' ? `M${cx},${cy - k}L${cx + k},${cy + k * 0.8}H${cx - k}Z`
        : `M${cx},${cy - k}L${cx + k},${cy}L${cx},${cy + k}L${cx - k},${cy}Z`;
    return s('path', { d, ...common });
  }
  const modelLabel = (model) => h('span.model', null, dot(model), h('span.model-name', null, breakable(model)));

  // Sequential blue scale for scores in [0, 1].
  const HEAT = [[0, [247, 251, 255]], [0.35, [198, 219, 239]], [0.6, [107, 174, 214]],
    [0.8, [33, 113, 181]], [1, [8, 48, 107]]];
  function heat(value) {
    const v = Math.max(0, Math.min(1, value));
    let i = 1;
    while (i < HEAT.length - 1 && v > HEAT[i][0]) i++;
    const [a, ca] = HEAT[i - 1], [b, cb] = HEAT[i];
    const t = (v - a) / (b - a || 1);
    const rgb = ca.map((c, k) => Math.round(c + (cb[k] - c) * t));
    return { background: 'rgb(' + rgb.join(',') + ')', color: v > 0.62 ? '#fff' : '#1c2230' };
  }

  function niceTicks(lo, hi, target) {
    const span = hi - lo || 1;
    const raw = span / target;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 2.5, 5, 10].map((k) => k * mag).find((k) => k >= raw) || 10 * mag;
    const ticks = [];
    for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) ticks.push(+t.toFixed(6));
    return ticks;
  }

  // ------------------------------------------------------------------ item records
  // Layouts: see checkbench/report/items.py.
  const CHUNK = IDX.chunk;
  const parsedChunks = new Map();
  const fetchedRecords = new Map();

  // A packed block (see checkbench/report/page.py): the page's windows-1252 characters back to
  // bytes, the `=` escapes undone, then inflated by the browser and parsed.
  const CP1252 = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039' +
    '\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc' +
    '\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
  const HIGH = new Map(Array.from(CP1252, (c, i) => [c.charCodeAt(0), 0x80 + i]));
  function packedBytes(text) {
    const out = new Uint8Array(text.length);
    let n = 0;
    const byte = (i) => { const c = text.charCodeAt(i); return c > 0xff ? HIGH.get(c) : c; };
    for (let i = 0; i < text.length; i++) {
      const b = byte(i);
      out[n++] = b === 0x3d ? (byte(++i) - 64) & 0xff : b;
    }
    return out.subarray(0, n);
  }
  async function unpack(id) {
    const el = document.getElementById(id);
    const stream = new Blob([packedBytes(el.textContent)]).stream()
      .pipeThrough(new DecompressionStream('deflate-raw'));
    const raw = await new Response(stream).arrayBuffer();
    return JSON.parse(new TextDecoder(el.dataset.text).decode(raw));
  }
  /** The records of block k (a promise), inflated when first asked for. */
  function chunkAt(k) {
    if (!parsedChunks.has(k)) parsedChunks.set(k, unpack('cb-chunk-' + k));
    return parsedChunks.get(k);
  }
  function decode(chunk, rec) {
    const S = chunk.strings, L = chunk.labels;
    const str = (i) => (i == null ? null : S[i]);
    return {
      rule: L[rec[0]],
      messages: rec[1].map(([role, text]) => ({ role: L[role], text: S[text] })),
      checks: rec[2].map(([id, text, weight, source]) => ({
        id: L[id], text: S[text], weight, source: L[source],
      })),
      reference: str(rec[3]),
      responses: rec[4].map((r) => ({
        model: r[0], content: str(r[1]), error: str(r[2]), prompt: r[3], completion: r[4],
        latency: r[5],
        verdicts: r[6].map((v) => ({
          judge: v[0], check: v[1], passed: v[2], reason: str(v[3]), pYes: v[4], raw: str(v[5]),
        })),
        sample: r[7],
      })),
    };
  }
  function getJSON(url) {
    return fetch(url, { headers: { Accept: 'application/json' } }).then((res) => {
      if (!res.ok) throw new Error(url + ': HTTP ' + res.status);
      return res.json();
    });
  }
  /** The records at these positions, decoded, in order. */
  async function records(positions) {
    if (!SERVED) {
      const chunks = await Promise.all(positions.map((p) => chunkAt(Math.floor(p / CHUNK))));
      return positions.map((p, i) => decode(chunks[i], chunks[i].records[p % CHUNK]));
    }
    const missing = positions.filter((p) => !fetchedRecords.has(p));
    if (missing.length) {
      const chunk = await getJSON('api/items?at=' + missing.join(','));
      missing.forEach((p, i) => fetchedRecords.set(p, decode(chunk, chunk.records[i])));
    }
    return positions.map((p) => fetchedRecords.get(p));
  }
  function textRefs(rec) {
    const refs = [];
    rec[1].forEach((m) => refs.push(m[1]));
    rec[2].forEach((c) => refs.push(c[1]));
    refs.push(rec[3]);
    rec[4].forEach((r) => {
      refs.push(r[1], r[2]);
      r[6].forEach((v) => refs.push(v[3], v[5]));
    });
    return refs.filter((r) => r != null);
  }
  /** Positions whose id or texts contain the query, ignoring case (as items.py defines it). */
  async function search(query) {
    const needle = query.toLowerCase();
    const hits = new Uint8Array(ITEMS.length);
    if (SERVED) {  // the server answers a page of positions at a time, `next` while more may follow
      for (let after = -1; after !== undefined;) {
        const found = await getJSON('api/search?q=' + encodeURIComponent(query) + '&after=' + after);
        found.positions.forEach((p) => { hits[p] = 1; });
        after = found.next;
      }
      return hits;
    }
    for (let k = 0; k * CHUNK < ITEMS.length; k++) {
      const chunk = await chunkAt(k);
      if (!chunk.lower) chunk.lower = chunk.strings.map((t) => t.toLowerCase());
      const match = chunk.lower.map((t) => t.includes(needle));
      chunk.records.forEach((rec, j) => {
        const p = k * CHUNK + j;
        if (ITEMS[p][0].toLowerCase().includes(needle) || textRefs(rec).some((r) => match[r])) {
          hits[p] = 1;
        }
      });
    }
    return hits;
  }

  // ------------------------------------------------------------------ shell and routing
  const state = {
    board: 0,
    slice: null, facet: null, sort: 'name', hidden: new Set(),
    nav: 0, expanded: null,
    q: '', hits: null, model: -1, verdict: '', tag: -1, page: 0, open: null,
  };
  const board = () => BOARDS[state.board];
  const boardJudge = () => (board() ? JUDGES.indexOf(board().judge) : -1);

  const TABS = [
    { id: 'overview', label: 'Overview', render: renderOverview },
    { id: 'breakdowns', label: 'Breakdowns', render: renderBreakdowns, show: BOARDS.length > 0 },
    { id: 'judges', label: 'Judges', render: renderJudges, show: !!DATA.meta },
    { id: 'cascade', label: 'Cascade', render: renderCascade, show: !!DATA.cascade },
    { id: 'taxonomy', label: 'Taxonomy', render: renderTaxonomy, show: !!DATA.taxonomy },
    { id: 'audit', label: 'Audit', render: renderAudit, show: !!DATA.audit },
    { id: 'items', label: 'Items', count: IDX.omitted ? FACTS.items : ITEMS.length, render: renderItems },
    { id: 'run', label: 'Run', render: renderRun },
    { id: 'compare', label: 'Compare', render: renderCompare, show: !!DATA.compare },
  ].filter((t) => t.show !== false);
  const panels = new Map();
  const tabButtons = new Map();
  const main = h('main', { id: 'main' });

  function shell() {
    const tabBar = h('nav.tabs', { role: 'tablist', 'aria-label': 'Report sections' });
    for (const tab of TABS) {
      const button = h('button.tab', {
        role: 'tab', 'aria-selected': 'false', 'data-tab': tab.id,
        onclick: () => go(tab.id === 'items' && state.open != null ? 'items/' + state.open : tab.id),
      }, tab.label, tab.count != null ? h('span.count', null, count(tab.count)) : null);
      tabButtons.set(tab.id, button);
      tabBar.append(button);
    }
    const judges = FACTS.judges.map((j) => j.name);
    document.title = 'checkbench · ' + FACTS.run;
    const sub = [FACTS.run, FACTS.benchmark ? String(FACTS.benchmark) : null,
      judges.length ? 'judged by ' + judges.join(', ') : 'not judged yet', FACTS.generated]
      .filter(Boolean).join(' · ');
    document.getElementById('app').replaceChildren(
      h('header.top', null, h('div.top-inner', null,
        h('div.brand', null, h('h1', null, 'checkbench report'), h('span.sub', null, sub)),
        tabBar)),
      main);
  }

  /** Show what the address names: '#tab', or '#items/N' for the item at position N. */
  function route() {
    const [name, arg] = location.hash.replace(/^#/, '').split('/');
    const tab = TABS.find((t) => t.id === name) || TABS[0];
    if (tab.id === 'items') {
      state.open = arg != null && /^\d+$/.test(arg) && +arg < ITEMS.length ? +arg : null;
    }
    show(tab.id);
  }

  /** Go to an address now (a history entry, so Back works) rather than on 'hashchange'. */
  function go(hash) {
    history.pushState(null, '', '#' + hash);
    route();
  }

  function show(id, rebuild) {
    for (const [tabId, button] of tabButtons) {
      button.setAttribute('aria-selected', String(tabId === id));
      const bar = button.parentElement;
      const outside = button.offsetLeft < bar.scrollLeft
        || button.offsetLeft + button.offsetWidth > bar.scrollLeft + bar.clientWidth;
      if (tabId === id && outside) bar.scrollLeft = button.offsetLeft - 16;
    }
    for (const [panelId, panel] of panels) panel.hidden = panelId !== id;
    let panel = panels.get(id);
    if (!panel || rebuild) {
      const fresh = h('section', { 'data-panel': id, role: 'tabpanel' });
      if (panel) panel.replaceWith(fresh); else main.append(fresh);
      panels.set(id, fresh);
      panel = fresh;
      TABS.find((t) => t.id === id).render(panel);
    } else if (id === 'items') {
      refreshItems();
    }
  }

  function rebuildBoardViews() {
    for (const id of ['overview', 'breakdowns']) {
      const panel = panels.get(id);
      if (panel) { panels.delete(id); panel.remove(); }
    }
    route();
  }

  function segmented(options, current, onPick, label) {
    return h('div.seg', { role: 'group', 'aria-label': label },
      options.map(([value, text]) => h('button', {
        type: 'button', 'aria-pressed': String(value === current), 'data-value': value,
        onclick: () => onPick(value),
      }, text)));
  }

  /** A choice of judges as buttons that wrap, so each judge's id shows whole. */
  function pickList(label, names, current, onPick, control) {
    return h('div.pick', { role: 'group', 'aria-label': label, 'data-control': control },
      h('span.pick-label', null, label),
      names.map((name, i) => h('button', {
        type: 'button', 'aria-pressed': String(i === current), 'data-value': i,
        onclick: () => { if (i !== current) onPick(i); },
      }, breakable(name))));
  }

  function judgePicker() {
    if (BOARDS.length < 2) return null;
    return pickList('Judge', BOARDS.map((b) => b.judge), state.board,
      (i) => { state.board = i; rebuildBoardViews(); }, 'judge');
  }

  function card(title, intro, ...body) {
    return h('div.card', null,
      h('div.card-head', null, h('h2', null, title), intro ? h('p.muted', null, intro) : null),
      body);
  }

  function problemsCard(problems) {
    if (!problems || !problems.length) return null;
    return h('div.card.problems', null, h('h3', null, 'Stored records that could not be shown'),
      h('ul', null, problems.map((p) => h('li', null, p))));
  }

  // ------------------------------------------------------------------ overview
  function tile(label, value, hint, alert, small) {
    return h('div.tile', { class: alert ? 'alert' : null },
      h('div.label', null, label), h('div.value', { class: small ? 'small' : null }, value),
      hint ? h('div.hint', null, hint) : null);
  }

  function renderOverview(panel) {
    const b = board();
    const verdicts = FACTS.judges.reduce((sum, j) => sum + j.verdicts, 0);
    const unscored = b ? b.rows.reduce((sum, r) => sum + r.unscored, 0) : 0;
    const errors = FACTS.models.reduce((sum, m) => sum + m.errors, 0);
    // A judge meta-evaluation: its responses are the benchmark's, its judges are what is ranked.
    const metaJudges = !b && DATA.meta && Object.values(DATA.meta.judges).some((f) => f.meta_report);
    panel.append(h('div.tiles', null,
      metaJudges ? tile('Judges', count(Object.keys(DATA.meta.judges).length), 'meta-evaluated')
        : tile('Models', count(FACTS.models.length)),
      tile('Items', count(FACTS.items), plural(FACTS.checks, 'check')),
      tile('Verdicts', count(verdicts), plural(FACTS.judges.length, 'judge')),
      tile('Unscored items', count(unscored),
        b ? (b.policy === 'zero' ? 'counted as 0 in scores' : 'left out of scores') : metaJudges ? 'see Judges' : 'no verdicts yet',
        unscored > 0),
      tile('Failed answers', count(errors), 'responses whose model call failed', errors > 0)));
    if (!b) {
      panel.append(metaJudges ? judgesCompared(DATA.meta.judges) : card('Leaderboard', null, h('p.empty', null,
        'No verdicts yet. Judge the responses first: checkbench judge ' + FACTS.run)));
      return;
    }
    panel.append(leaderboardCard(b));
    const models = b.rows.map((r) => r.model);
    const facets = Object.keys(b.breakdowns[models[0]] || {});
    const facet = facets.includes('task') ? 'task' : facets[0];
    const preview = facet ? h('div.card', null,
      h('div.card-head', null, h('h2', null, 'Scores by ' + humanize(facet).toLowerCase()),
        h('button.linkish', { type: 'button', onclick: () => go('breakdowns') }, 'All breakdowns ›')),
      bars(b, models, { slice: 'all', facet, sort: 'name', compact: true })) : null;
    const plot = b.kind === 'fb-bench' ? scatterChart(b.rows) : null;
    const scatter = plot ? card('Error correction vs response maintenance',
      plot.dataset.role === 'scatter-empty' ? null : 'One point per model, whiskers are 95% intervals. Above the diagonal: better at holding a correct answer than at fixing a wrong one.',
      plot) : null;
    const side = scatter && preview && models.length <= 10 && plot.dataset.role !== 'scatter-empty';
    fill(panel, [side ? h('div.grid-2', null, scatter, preview) : h('div.stack', null, scatter, preview)]);
  }

  function leaderboardCard(b) {
    const cols = b.columns;
    const overall = b.rows.filter((r) => r.overall_ci);
    let lo = Math.min(...overall.map((r) => r.overall_ci[0]));
    let hi = Math.max(...overall.map((r) => r.overall_ci[1]));
    lo = Math.max(0, Math.floor(lo / 5) * 5);
    hi = Math.min(100, Math.ceil(hi / 5) * 5);
    if (!(hi > lo)) { lo = 0; hi = 100; }
    const head = h('tr', null, h('th.r', null, '#'), h('th', null, 'Model'),
      cols.map(([, label]) => h('th.r', null, label)),
      h('th.col-forest', null, 'Overall, 95% interval', h('span.ci', null, 'axis ' + lo + ' to ' + hi)),
      h('th.r', null, 'n'), h('th.r', null, 'Unscored'));
    const body = h('tbody', null, b.rows.map((row, i) => h('tr', { 'data-model': row.model },
      h('td.r.rank', null, i + 1),
      h('td.model-cell', null, modelLabel(row.model)),
      cols.map(([key], c) => h('td.r.num', { 'data-col': key },
        h('span.score', { class: c === 0 ? 'lead' : null }, f2(row[key])), h('span.ci', null, ciText(row[key], row[key + '_ci'])))),
      h('td.col-forest', null, forest(row, lo, hi)),
      h('td.r.num', null, count(row.n)),
      h('td.r.num', { class: row.unscored ? 'warn-num' : 'zero' }, count(row.unscored)))));
    const policy = b.policy === 'zero' ? 'unscored items count as 0 (the published convention)'
      : 'unscored items are left out';
    const intro = (b.kind === 'fb-bench'
      ? 'FB-Bench scores (0-100): error correction, response maintenance and their overall mean. '
      : 'Mean item score (0-100). ') + 'Brackets: 95% bootstrap intervals. Judge: ' + b.judge + '; ' + policy + '.';
    return h('div.card', { id: 'leaderboard' },
      h('div.card-head', null, h('h2', null, 'Leaderboard'), judgePicker()),
      h('p.muted', { style: { margin: '0 0 10px' } }, intro),
      h('div.table-wrap', null, h('table.board', null, h('thead', null, head), body)));
  }

  function forest(row, lo, hi) {
    const W = 200, H = 22, pad = 6;
    const x = (v) => pad + ((v - lo) / (hi - lo)) * (W - 2 * pad);
    const svg = s('svg', { class: 'forest', width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, 'aria-hidden': 'true' },
      s('line', { x1: pad, x2: W - pad, y1: H / 2, y2: H / 2, stroke: '#e2e5ea' }));
    if (row.overall_ci) {
      svg.append(s('line', { x1: x(row.overall_ci[0]), x2: x(row.overall_ci[1]), y1: H / 2, y2: H / 2, stroke: colorOf(row.model), 'stroke-width': 3, 'stroke-linecap': 'round', opacity: 0.55 }));
    }
    if (row.overall != null) svg.append(svgDot(row.model, x(row.overall), H / 2, 5));
    return svg;
  }

  /** Redraw `draw(width)` whenever the box changes width (and once it is first laid out). */
  function responsive(box, draw) {
    let last = -1;
    const redraw = () => {
      const width = Math.floor(box.clientWidth);
      if (width > 0 && width !== last) { last = width; box.replaceChildren(draw(width)); }
    };
    new ResizeObserver(debounce(redraw, 60)).observe(box);
    requestAnimationFrame(redraw);
    return box;
  }

  let measureCtx = null;
  /** The width of a chart label in pixels (12px semibold in the page's font). */
  function labelWidth(text) {
    if (!measureCtx) {
      measureCtx = document.createElement('canvas').getContext('2d');
      measureCtx.font = '600 12px ' + getComputedStyle(document.body).fontFamily;
    }
    return measureCtx ? measureCtx.measureText(text).width : text.length * 7;
  }
  const overlaps = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

  /** Label boxes for points, each beside its point without covering another label or point
      and inside the area; null for a point whose label fits nowhere. */
  /** A box per label beside its point, off every point, every other label and every
      whisker in `bars` (a label's own whiskers too): null where none is free. */
  function placeLabels(points, texts, area, bars = []) {
    const marks = points.map((p) => ({ x: p.cx - 7, y: p.cy - 7, w: 14, h: 14 }));
    const placed = [];
    return points.map((p, i) => {
      const w = labelWidth(texts[i]) + 2, lh = 14;
      const spots = [[9, -lh / 2], [-9 - w, -lh / 2], [-w / 2, -9 - lh], [-w / 2, 9], [7, -6 - lh], [7, 6], [-7 - w, -6 - lh], [-7 - w, 6]];
      for (const [dx, dy] of spots) {
        const box = { x: p.cx + dx, y: p.cy + dy, w, h: lh };
        if (box.x < area.x0 || box.y < area.y0 || box.x + box.w > area.x1 || box.y + box.h > area.y1) continue;
        if (placed.some((q) => overlaps(box, q)) || marks.some((q, k) => k !== i && overlaps(box, q))
          || bars.some((q) => overlaps(box, q))) continue;
        placed.push(box);
        return box;
      }
      return null;
    });
  }

  /** Error correction against response maintenance, one point per model. Points carry their
      model's name where every name fits; otherwise their leaderboard rank, with a key below
      the chart that names each one and finds models by name. */
  function scatterChart(rows) {
    const ranked = rows.map((r, i) => ({ ...r, rank: i + 1 }));
    const points = ranked.filter((r) => r.error_correction != null && r.response_maintenance != null);
    if (!points.length) {
      const ec = rows.some((r) => r.error_correction != null), rm = rows.some((r) => r.response_maintenance != null);
      return h('p.empty', { 'data-chart': 'scatter', 'data-role': 'scatter-empty' }, ec && !rm
        ? 'Nothing to plot: this run has error-correction items only, so no model has a response-maintenance score to set against it.'
        : rm && !ec ? 'Nothing to plot: this run has response-maintenance items only, so no model has an error-correction score to set against it.'
          : 'Nothing to plot: no model has both an error-correction and a response-maintenance score yet.');
    }
    let query = '';
    let hover = null;
    const found = (r) => query && r.model.toLowerCase().includes(query);
    const keyEntries = new Map();
    const keyList = h('ol.key-list');
    const keyStatus = h('span.faint.key-status', { 'aria-live': 'polite' });
    const key = h('div.scatter-key', { 'data-role': 'scatter-legend', hidden: true },
      h('div.key-head', null,
        h('input', {
          type: 'search', placeholder: 'Find a model…', 'aria-label': 'Find a model in the chart', 'data-control': 'scatter-search',
          oninput: (e) => { query = e.target.value.trim().toLowerCase(); refresh(); },
        }), keyStatus),
      keyList);
    for (const r of [...points].sort((a, c) => a.rank - c.rank)) {
      const entry = h('li', { 'data-model': r.model, 'data-key': r.rank, tabindex: 0,
        onmouseenter: () => { hover = r.model; refresh(); }, onmouseleave: () => { hover = null; refresh(); },
        onfocus: () => { hover = r.model; refresh(); }, onblur: () => { hover = null; refresh(); } },
      h('span.key-num.num', null, r.rank), dot(r.model), h('span.key-name', null, breakable(r.model)),
      h('span.key-values.num', null, f2(r.error_correction) + ' · ' + f2(r.response_maintenance)));
      keyEntries.set(r.model, entry);
      keyList.append(entry);
    }
    let svgNow = null, areaNow = null, barsNow = [];
    function refresh() {
      let hits = 0;
      for (const [model, entry] of keyEntries) {
        const hit = !query || model.toLowerCase().includes(query);
        entry.hidden = !hit;
        entry.classList.toggle('lit', hover === model);
        if (hit) hits++;
      }
      keyStatus.textContent = query ? plural(hits, 'model') + ' found' : 'EC · RM per model, by rank';
      if (svgNow) decorate(svgNow);
    }
    function decorate(svg) {
      const focus = points.filter((r) => r.model === hover || (found(r) && points.filter(found).length <= 8));
      for (const g of svg.querySelectorAll('g[data-model]')) {
        const model = g.getAttribute('data-model');
        g.classList.toggle('dim', (!!query && !model.toLowerCase().includes(query)) || (hover != null && hover !== model));
        g.classList.toggle('hit', !!query && model.toLowerCase().includes(query));
        g.classList.toggle('lit', hover === model);
      }
      svg.querySelectorAll('.focus-label').forEach((n) => n.remove());
      const layer = svg.querySelector('.focus-layer');
      const at = focus.map((r) => {
        const g = svg.querySelector('g[data-model="' + CSS.escape(r.model) + '"]');
        return { cx: +g.dataset.cx, cy: +g.dataset.cy };
      });
      const boxes = placeLabels(at, focus.map((r) => r.model), areaNow, barsNow);
      focus.forEach((r, i) => {
        const w = labelWidth(r.model), { cx, cy } = at[i];
        const bx = boxes[i] || { x: Math.max(areaNow.x0, Math.min(cx + 10, areaNow.x1 - w)), y: Math.max(areaNow.y0, cy - 24) };
        layer.append(s('text', { class: 'label focus-label', x: bx.x + 1, y: bx.y + 11 }, r.model));
      });
    }
    const chart = responsive(h('div.chart', { 'data-chart': 'scatter' }), (width) => {
      const W = width, H = Math.round(Math.max(280, Math.min(520, W * 0.62)));
      const m = { l: 54, r: 18, t: 12, b: 46 };
      const xs = points.flatMap((r) => [r.error_correction, ...(r.error_correction_ci || [])]);
      const ys = points.flatMap((r) => [r.response_maintenance, ...(r.response_maintenance_ci || [])]);
      const lo = Math.max(0, Math.floor((Math.min(...xs, ...ys) - 2) / 5) * 5);
      const hi = Math.min(100, Math.ceil((Math.max(...xs, ...ys) + 2) / 5) * 5);
      const x = (v) => m.l + ((v - lo) / (hi - lo || 1)) * (W - m.l - m.r);
      const y = (v) => H - m.b - ((v - lo) / (hi - lo || 1)) * (H - m.t - m.b);
      const svg = s('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'Error correction against response maintenance per model' });
      const grid = s('g', { class: 'grid' });
      for (const t of niceTicks(lo, hi, Math.max(3, Math.round(W / 110)))) {
        grid.append(
          s('line', { x1: x(t), x2: x(t), y1: m.t, y2: H - m.b }),
          s('line', { x1: m.l, x2: W - m.r, y1: y(t), y2: y(t) }),
          s('text', { x: x(t), y: H - m.b + 16, 'text-anchor': 'middle' }, t),
          s('text', { x: m.l - 8, y: y(t) + 4, 'text-anchor': 'end' }, t));
      }
      svg.append(grid,
        s('path', { class: 'frame', d: 'M' + m.l + ',' + m.t + 'V' + (H - m.b) + 'H' + (W - m.r) }),
        s('line', { class: 'diag', x1: x(lo), y1: y(lo), x2: x(hi), y2: y(hi) }),
        s('text', { class: 'title', x: m.l + (W - m.l - m.r) / 2, y: H - 8, 'text-anchor': 'middle' }, 'Error correction →'),
        s('text', { class: 'title', transform: 'rotate(-90)', x: -(m.t + (H - m.t - m.b) / 2), y: 14, 'text-anchor': 'middle' }, 'Response maintenance →'));
      const at = points.map((r) => ({ cx: x(r.error_correction), cy: y(r.response_maintenance) }));
      let texts = points.map((r) => r.model);
      const area = { x0: m.l + 2, y0: 1, x1: W - 1, y1: H - m.b - 1 };
      areaNow = area;
      // The whiskers, caps included, as boxes no label may cover.
      const bars = points.flatMap((r, i) => [
        r.error_correction_ci && { x: x(r.error_correction_ci[0]) - 1, y: at[i].cy - 5, w: x(r.error_correction_ci[1]) - x(r.error_correction_ci[0]) + 2, h: 10 },
        r.response_maintenance_ci && { x: at[i].cx - 5, y: y(r.response_maintenance_ci[1]) - 1, w: 10, h: y(r.response_maintenance_ci[0]) - y(r.response_maintenance_ci[1]) + 2 },
      ].filter(Boolean));
      barsNow = bars;
      let boxes = placeLabels(at, texts, area, bars);
      const keyed = boxes.some((bx) => bx == null);
      if (keyed) {
        texts = points.map((r) => String(r.rank));
        boxes = placeLabels(at, texts, area, bars);
      }
      const marks = s('g'), labels = s('g');
      points.forEach((r, i) => {
        const { cx, cy } = at[i];
        const color = colorOf(r.model);
        const g = s('g', { 'data-model': r.model, 'data-key': r.rank, 'data-cx': cx, 'data-cy': cy,
          onmouseenter: () => { hover = r.model; refresh(); }, onmouseleave: () => { hover = null; refresh(); } },
          s('title', null, '#' + r.rank + ' ' + r.model + ': error correction ' + f2(r.error_correction) + ' ' + ciText(r.error_correction, r.error_correction_ci) + ', response maintenance ' + f2(r.response_maintenance) + ' ' + ciText(r.response_maintenance, r.response_maintenance_ci)));
        const whisker = (x1, y1, x2, y2, cap) => {
          const line = { class: 'whisk', stroke: color, 'stroke-width': 1.4 };
          g.append(s('line', { x1, y1, x2, y2, ...line }));
          for (const [px, py] of [[x1, y1], [x2, y2]]) {
            g.append(cap === 'v' ? s('line', { x1: px, x2: px, y1: py - 4, y2: py + 4, ...line })
              : s('line', { x1: px - 4, x2: px + 4, y1: py, y2: py, ...line }));
          }
        };
        if (r.error_correction_ci) whisker(x(r.error_correction_ci[0]), cy, x(r.error_correction_ci[1]), cy, 'v');
        if (r.response_maintenance_ci) whisker(cx, y(r.response_maintenance_ci[0]), cx, y(r.response_maintenance_ci[1]), 'h');
        g.append(svgDot(r.model, cx, cy, 6, { 'stroke-width': 2 }));
        marks.append(g);
        const bx = boxes[i] || { x: cx + 7, y: cy - 20, w: labelWidth(texts[i]) };  // off its own whiskers
        labels.append(s('text', { class: keyed ? 'label key' : 'label', 'data-label': r.model, x: bx.x + 1, y: bx.y + 11 }, texts[i]));
      });
      svg.classList.toggle('crowded', points.length > 10);
      svg.append(marks, labels, s('g', { class: 'focus-layer' }));
      key.hidden = !keyed;
      svgNow = svg;
      decorate(svg);
      return svg;
    });
    refresh();
    return h('div.scatter', null, chart, key);
  }

  // ------------------------------------------------------------------ breakdowns
  function renderBreakdowns(panel) {
    const b = board();
    const models = b.rows.map((r) => r.model);
    const facets = [...new Set(models.flatMap((m) => Object.keys(b.breakdowns[m] || {})))];
    if (!facets.includes(state.facet)) state.facet = facets.includes('task') ? 'task' : facets[0];
    const slices = [...new Set(models.flatMap((m) => Object.keys((b.breakdowns[m] || {})[state.facet] || {})))];
    if (!slices.includes(state.slice)) state.slice = slices.includes('all') ? 'all' : slices[0];
    const redraw = () => show('breakdowns', true);
    const controls = h('div.controls', null,
      facets.length ? segmented(facets.map((k) => [k, humanize(k)]), state.facet, (v) => { state.facet = v; redraw(); }, 'Facet') : null,
      slices.length > 1 ? segmented(slices.map((k) => [k, humanize(k)]), state.slice, (v) => { state.slice = v; redraw(); }, 'Items') : null,
      segmented([['name', 'A–Z'], ['score', 'By mean score']], state.sort, (v) => { state.sort = v; redraw(); }, 'Order'),
      judgePicker());
    const legend = h('div.legend', { role: 'group', 'aria-label': 'Models shown' }, models.map((m) => h('button', {
      type: 'button', 'aria-pressed': String(!state.hidden.has(m)),
      onclick: () => { if (state.hidden.has(m)) state.hidden.delete(m); else state.hidden.add(m); redraw(); },
    }, dot(m), breakable(m))));
    const shown = models.filter((m) => !state.hidden.has(m));
    panel.append(h('div.card', null,
      h('div.card-head', null, h('h2', null, 'Scores by ' + humanize(state.facet || '').toLowerCase()),
        h('p.muted', null, humanize(state.slice || '') + ' · judge ' + b.judge + ' · scores 0-100, whiskers are 95% intervals'
          + (b.kind === 'fb-bench' ? ' · each bar the mean of its task means, as FB-Bench reports' : ''))),
      controls, legend,
      facets.length ? bars(b, shown, state) : h('p.empty', null, 'No tags to break scores down by.')));
  }

  /** Horizontal bars per facet value, one per model, with interval whiskers. */
  function bars(b, models, view) {
    const table = (m) => ((b.breakdowns[m] || {})[view.facet] || {})[view.slice] || {};
    const cell = (m, v) => table(m)[v];
    let values = [...new Set(Object.keys(b.breakdowns).flatMap((m) => Object.keys(table(m))))];
    if (view.sort === 'score') {
      const mean = (v) => {
        const xs = models.map((m) => cell(m, v)).filter((c) => c && c.score != null).map((c) => c.score);
        return xs.length ? xs.reduce((a, c) => a + c, 0) / xs.length : -1;
      };
      values = values.sort((a, c) => mean(c) - mean(a));
    }
    const nameWidth = Math.ceil(Math.max(0, ...models.map(labelWidth)) * 0.95) + 22;
    const grid = h('div.bars', { class: view.compact ? 'compact' : null, 'data-chart': 'bars' },
      h('div'), h('div.axis-row', null, h('div.bar-name'), h('div.axis-ticks', null, [0, 25, 50, 75, 100].map((t) => h('span', { style: { left: t + '%' } }, t))), h('div')));
    grid.style.setProperty('--name-w', 'min(' + nameWidth + 'px, 36%)');
    for (const v of values) {
      const ns = models.map((m) => cell(m, v)).filter(Boolean).map((c) => c.n);
      const nText = ns.length ? (Math.min(...ns) === Math.max(...ns) ? 'n = ' + ns[0] : 'n = ' + Math.min(...ns) + '–' + Math.max(...ns)) : '';
      grid.append(h('div.bar-label', { 'data-value': v }, v, h('span.n', null, nText)));
      grid.append(h('div.bar-group', null, models.map((m) => {
        const c = cell(m, v);
        const track = h('div.track', { title: m + ' · ' + v + ': ' + (c && c.score != null ? f2(c.score) + ' ' + ciText(c.score, c.ci) + ', n=' + c.n + (c.unscored ? ', ' + c.unscored + ' unscored' : '') : 'no items') });
        if (c && c.score != null) {
          track.append(h('div.fill', { style: { width: c.score + '%', background: colorOf(m) } }));
          if (c.ci) track.append(h('div.whisker', { style: { left: c.ci[0] + '%', width: Math.max(0.5, c.ci[1] - c.ci[0]) + '%' } }));
        }
        return h('div.bar-row', { 'data-model': m }, h('span.bar-name', null, dot(m), h('span', null, breakable(m))), track,
          h('span.bar-value.num', null, c && c.score != null ? f2(c.score) : '–',
            c && c.unscored && !view.compact ? h('small.unsc', { title: c.unscored + ' unscored item(s) in this group' }, ' ' + c.unscored + ' unsc.') : null));
      })));
    }
    return grid;
  }

  // ------------------------------------------------------------------ judges (meta-evaluation)
  function statText(st, digits = 3) {
    if (!st || st.value == null) return '–';
    return st.value.toFixed(digits);
  }
  function statCi(st, digits = 3) {
    return st && st.value != null ? interval(st.low, st.high, digits) : '';
  }
  /** Why an interval is degenerate, on a line of its own that wraps (or nothing). */
  const statWhy = (st) => (st && st.why ? h('div.why', null, '(' + st.why + ')') : null);
  // A figure over fewer than notation.few_units units is marked, its reason in words (the
  // terminal's mark and words: checkbench.stats.notation).
  const NOTATION = DATA.notation || { few_units: 10, few_mark: '*', few_reason: '' };
  const fewUnits = (st) => !!st && st.value != null && Math.min(st.n, st.resampled != null ? st.resampled : Infinity) < NOTATION.few_units;
  const fewNote = (st) => (fewUnits(st) ? h('div.why', { 'data-few': '' }, NOTATION.few_mark + ' ' + NOTATION.few_reason) : null);
  /** In a table cell, the mark alone (its reason as its title); the table says why below. */
  const fewMark = (st) => (fewUnits(st) ? h('span.few', { 'data-few': '', title: NOTATION.few_reason }, NOTATION.few_mark) : null);
  const fewFootnote = (stats) => (stats.some(fewUnits) ? h('p.note', { 'data-few-note': '' }, NOTATION.few_mark + ' ' + NOTATION.few_reason + '.') : null);
  function metric(name, st, range, digits = 3, sign = false) {
    if (!st || st.value == null) return null;  // undefined: named in the metrics' note
    const [lo, hi] = range || [0, 1];
    const pos = (v) => Math.max(0, Math.min(100, ((v - lo) / (hi - lo)) * 100)) + '%';
    const meter = h('div.meter', null, lo < 0 ? h('span.mid') : null);
    if (st && st.value != null) {
      meter.append(h('div.fill', { style: lo < 0 ? { left: pos(Math.min(0, st.value)), width: Math.abs(st.value) / (hi - lo) * 100 + '%' } : { width: pos(st.value) } }));
      if (st.low != null) meter.append(h('div.whisker', { style: { left: pos(st.low), width: ((st.high - st.low) / (hi - lo)) * 100 + '%' } }));
    }
    return h('div.metric', { 'data-metric': name },
      h('div.name', null, name),
      h('div', null, h('span.big.num', null, sign ? signed(st.value, digits) : statText(st, digits)),
        h('span.ci.num', null, sign ? signedInterval(st.low, st.high, digits) : statCi(st, digits))),
      statWhy(st), fewNote(st),
      h('div.faint', { style: { fontSize: '11.5px' } }, st ? 'n = ' + count(st.n) : ''),
      meter);
  }
  /** The figures that are undefined on this run, and why, in one line (or nothing). */
  function undefinedNote(stats) {
    const missing = Object.entries(stats).filter(([, st]) => !st || st.value == null)
      .map(([name, st]) => name + (st && st.why ? ' (' + st.why + ')' : st ? ' (n = ' + count(st.n) + ')' : ''));
    return missing.length ? h('p.note', { 'data-role': 'undefined' }, 'Undefined on this run: ' + missing.join(', ') + '.') : null;
  }
  function statCell(st) {
    return h('td.r.num', null, statText(st), fewMark(st), h('span.ci', null, statCi(st)), statWhy(st));
  }
  function groupTable(title, groups, columns) {
    const keys = Object.keys(groups || {});
    if (!keys.length) return null;
    return h('div', null, h('div.section-title', null, title),
      h('div.table-wrap', null, h('table', null,
        h('thead', null, h('tr', null, h('th', null, ''), columns.map(([, label]) => h('th.r', null, label)))),
        h('tbody', null, keys.map((k) => h('tr', null, h('td', null, k),
          columns.map(([key]) => (typeof groups[k][key] === 'object' ? statCell(groups[k][key]) : h('td.r.num', null, count(groups[k][key]))))))))));
  }
  const GROUP_COLS = [['instructions', 'Instructions'], ['positive_f1', 'Positive F1'], ['negative_f1', 'Negative F1'], ['accuracy', 'Edge accuracy'], ['kendall_tau_b', 'Kendall tau-b']];
  const AGREE_COLS = [['n', 'Labels'], ['agreement', 'Agreement'], ['kappa', 'Kappa'], ['positive_f1', 'Positive F1'], ['negative_f1', 'Negative F1'], ['mcc', 'MCC']];
  function agreementMetrics(a) {
    return h('div', null, h('div.metrics', null,
      metric('Agreement', a.agreement), metric('Cohen’s kappa', a.kappa, [-1, 1]),
      metric('Krippendorff’s alpha', a.alpha, [-1, 1]), metric('Sensitivity', a.sensitivity),
      metric('Specificity', a.specificity), metric('MCC', a.mcc, [-1, 1]),
      a.balanced_accuracy ? metric('Balanced accuracy', a.balanced_accuracy) : null),
      undefinedNote({ 'Cohen’s kappa': a.kappa, 'Krippendorff’s alpha': a.alpha, Sensitivity: a.sensitivity, Specificity: a.specificity, MCC: a.mcc }));
  }
  function positionBlock(p) {
    const total = p.pairs || 1;
    const parts = [
      ['Consistent', p.consistent_wins + p.consistent_ties, '#59a14f'],
      ['First shown wins both', p.first_position, '#e15759'],
      ['Second shown wins both', p.second_position, '#f28e2b'],
      ['Other inconsistent', p.inconsistent - p.first_position - p.second_position, '#bab0ac'],
    ];
    return h('div', { 'data-meta': 'position' }, h('div.section-title', null, 'Position bias (pairs judged in both orders)'),
      h('div.metrics', null,
        metric('Consistency rate', { value: p.consistency_rate, low: null, high: null, n: p.pairs }),
        metric('Position bias rate', { value: p.position_bias_rate, low: null, high: null, n: p.pairs })),
      h('div.stackbar', null, parts.map(([label, n, color]) => h('span', { title: label + ': ' + n, style: { width: (n / total) * 100 + '%', background: color } }))),
      h('div.keys', null, parts.map(([label, n, color]) => h('span', null, h('i', { style: { background: color } }), label + ' ' + count(n)))));
  }
  /** One row per judge: its headline meta-evaluation numbers side by side. */
  function judgesCompared(judges) {
    const cols = [
      ['Kendall τb', (f) => f.meta_report && f.meta_report.overall.kendall_tau_b],
      ['Edge accuracy', (f) => f.meta_report && f.meta_report.overall.accuracy],
      ['Positive F1', (f) => f.meta_report && f.meta_report.overall.positive_f1],
      ['Negative F1', (f) => f.meta_report && f.meta_report.overall.negative_f1],
      ['Agreement with humans', (f) => f.judge_agreement && f.judge_agreement.agreement],
      ['Kappa with humans', (f) => f.judge_agreement && f.judge_agreement.kappa],
      ['Position bias', (f) => f.meta_report && f.meta_report.pairwise
        && { value: f.meta_report.pairwise.position.position_bias_rate, low: null, high: null }],
    ];
    cols.push(
      ['Agreement with reference', (f) => f.reference_agreement && f.reference_agreement.agreement],
      ['Kappa with reference', (f) => f.reference_agreement && f.reference_agreement.kappa]);
    const known = (st) => st && st.value != null;
    // Only what the run has: columns with a figure, judges with a figure in them.
    const shown = cols.filter(([, get]) => Object.values(judges).some((f) => known(get(f))));
    const rows = Object.entries(judges).filter(([, f]) => shown.some(([, get]) => known(get(f))));
    if (!shown.length || rows.length < 2) return null;
    const first = shown[0];
    const key = (f) => { const st = first[1](f); return known(st) ? st.value : -Infinity; };
    rows.sort((a, b) => key(b[1]) - key(a[1]));
    const caption = 'Judges ranked by ' + first[0] + (first[0] === 'Kendall τb' ? ' over the preference edges (IF-RewardBench)' : '') + '; rates 0-1, τb and kappa −1 to 1; brackets are 95% intervals.';
    return card('Judge leaderboard', caption, h('div.table-wrap', null, h('table', { 'data-table': 'judges' },
      h('thead', null, h('tr', null, h('th', null, 'Judge'), shown.map(([label]) => h('th.r', null, label)))),
      h('tbody', null, rows.map(([judge, f]) => h('tr', null, h('td.name-cell', null, breakable(judge)),
        shown.map(([, get]) => statCell(get(f)))))))));
  }

  /** A judge against a reference judge: check agreement, then model scores and ranks under each. */
  function referenceBlock(title, ra) {
    const r = ra.ranking;
    const pts = (st) => h('td.r.num', null, statText(st, 2), h('span.ci', null, statCi(st, 2)));
    const shift = (st) => h('td.r.num', { 'data-role': 'shift' }, st && st.value != null ? signed(st.value) : '–',
      h('span.ci', null, st && st.value != null ? signedInterval(st.low, st.high) : ''));
    return h('div', { 'data-meta': 'reference' },
      h('div.section-title', null, title + ', ' + plural(ra.agreement.n, 'check verdict') + ' over ' + plural(ra.agreement.clusters, 'item')),
      agreementMetrics(ra.agreement),
      h('div.metrics', null,
        metric('Spearman of model scores', r.spearman, [-1, 1]), metric('Kendall τb of model scores', r.kendall_tau_b, [-1, 1]),
        metric('Largest model score shift (points)' + (r.largest_shift_model ? ', ' + r.largest_shift_model : ''), r.largest_shift, [-100, 100], 2, true)),
      undefinedNote({ 'Spearman of model scores': r.spearman, 'Kendall τb of model scores': r.kendall_tau_b }),
      h('div.table-wrap', null, h('table', { 'data-table': 'reference-models' },
        h('thead', null, h('tr', null, ['Model', 'Reference', 'Judge', 'Shift', 'Rank'].map((l, i) => h(i ? 'th.r' : 'th', null, l)))),
        h('tbody', null, r.models.map((m) => h('tr', null, h('td', null, m.model), pts(m.reference), pts(m.judge), shift(m.shift),
          h('td.r.num', null, m.reference_rank + ' → ' + m.judge_rank)))))),
      h('p.note', null, count(ra.agreement.unscored) + ' unscored judge verdicts (counted as wrong), ' + count(ra.agreement.gold_missing) + ' unscored reference verdicts (no reference label), ' + count(ra.agreement.only_reference) + ' reference verdicts the judge did not give; responses unscored: ' + count(r.judge_unscored) + ' under the judge, ' + count(r.reference_unscored) + ' under the reference (policy ' + r.policy + ')' + (ra.excluded_items ? '; ' + plural(ra.excluded_items, 'calibration training item') + ' left out' : '') + '.'));
  }
  function calibrationBlock(c) {
    return h('div', { 'data-meta': 'calibration' },
      h('div.section-title', null, 'Calibration of ' + c.judge + ' to ' + c.reference + ' (' + c.method + (c.by ? ' by ' + c.by : '') + ', artefact v' + c.version + '): held-out items only'),
      c.warning ? h('p.warn', { 'data-warning': 'calibration' }, c.warning) : null,
      c.fallback_groups && Object.keys(c.fallback_groups).length ? h('p.note', null, 'Groups too small to fit, using the whole-run curve: ' + Object.entries(c.fallback_groups).map(([g, why]) => (g || '(none)') + ': ' + why).join('; ') + '.') : null,
      h('p.note', null, 'Fitted on ' + plural(c.train.items, 'item') + ' (' + plural(c.train.verdicts, 'verdict') + '), measured on the other ' + plural(c.test.items, 'item') + ' (' + plural(c.test.verdicts, 'verdict') + '); ' + count(c.unusable) + ' verdicts without P(yes) or reference label; pass at calibrated P ≥ ' + f3(c.threshold) + '.'),
      referenceBlock('Before calibration', c.before), referenceBlock('After calibration', c.after));
  }

  function renderJudges(panel) {
    const meta = DATA.meta;
    fill(panel, [problemsCard(meta.problems)]);
    const facts = new Map(FACTS.judges.map((j) => [j.name, j]));
    const compared = Object.keys(meta.judges).length > 1 ? judgesCompared(meta.judges) : null;
    if (compared) panel.append(compared);
    for (const [judge, found] of Object.entries(meta.judges)) {
      const body = [];
      const r = found.meta_report;
      if (r) {
        body.push(h('div.section-title', null, 'Against gold labels and preferences (IF-RewardBench), ' + count(r.overall.instructions) + ' instructions'),
          h('div.metrics', null,
            metric('Positive F1', r.overall.positive_f1), metric('Negative F1', r.overall.negative_f1),
            metric('Edge accuracy', r.overall.accuracy), metric('Kendall τb', r.overall.kendall_tau_b, [-1, 1])));
        if (r.agreement) body.push(h('div.section-title', null, 'Label agreement'), agreementMetrics(r.agreement));
        const u = r.unscored;
        body.push(h('p.note', null, 'Unscored: ' + count(u.labels) + ' of ' + count(u.total_labels) + ' labels, ' + count(u.responses) + ' of ' + count(u.total_responses) + ' responses without a ranking score, ' + count(u.edges) + ' of ' + count(u.total_edges) + ' edges with an unscored end (counted as ties), ' + count(u.instructions_without_edges) + ' instructions without edges.'));
        body.push(groupTable('By instruction type', r.by_instruction_type, GROUP_COLS),
          groupTable('By constraint category (pooled labels)', r.by_category, AGREE_COLS),
          h('details.more', null, h('summary', null, 'By turns, number of constraints and composition type'),
            groupTable('By turns', r.by_turns, GROUP_COLS),
            groupTable('By number of constraints', r.by_constraints, GROUP_COLS),
            groupTable('By composition type (pooled labels)', r.by_composition, AGREE_COLS)));
        if (r.pairwise) {
          const pw = r.pairwise;
          body.push(h('div.section-title', null, 'Pairwise judging (' + humanize(pw.method) + ')'),
            h('p.muted', null, count(pw.judgments) + ' judgments, ' + count(pw.unscored) + ' unscored, ' + count(pw.ties) + ' ties, ' + count(pw.unranked_responses) + ' responses unranked.'),
            h('div.metrics', null,
              metric('Edge accuracy (both orders)', pw.edges.overall.accuracy), metric('Kendall τb (both orders)', pw.edges.overall.kendall_tau_b, [-1, 1]),
              metric('Edge accuracy (listwise)', pw.listwise.overall.accuracy), metric('Kendall τb (listwise)', pw.listwise.overall.kendall_tau_b, [-1, 1])),
            positionBlock(pw.position));
        }
      }
      const a = found.judge_agreement;
      if (a) {
        body.push(h('div.section-title', null, 'Against human verdicts, ' + plural(a.n, 'check verdict') + ' over ' + plural(a.clusters, 'item')),
          agreementMetrics(a),
          h('p.note', null, count(a.unscored) + ' unscored judge verdicts (counted as wrong), ' + count(a.only_reference) + ' human verdicts without a judge verdict, ' + count(a.only_judge) + ' judge verdicts without a human one.'));
      }
      if (found.reference_agreement) body.push(referenceBlock('Against reference judge ' + found.reference_agreement.reference, found.reference_agreement));
      if (found.calibration_report) body.push(calibrationBlock(found.calibration_report));
      const f = facts.get(judge);
      panel.append(h('div.card', { 'data-judge': judge },
        h('div.card-head', null, h('h2', null, judge),
          f ? h('p.muted', null, [f.mode ? 'mode ' + f.mode : null, ...(f.prompts || [])].filter(Boolean).join(' · ')) : null),
        body));
    }
  }

  // ------------------------------------------------------------------ cascade of judges
  function renderCascade(panel) {
    const data = DATA.cascade;
    fill(panel, [problemsCard(data.problems)]);
    for (const c of data.cascades) {
      const s = c.summary;
      const share = { value: s.escalated_share, low: null, high: null, n: s.checks };
      const fig = (name, label, value) => h('tr', { 'data-figure': name }, h('td', null, label), h('td.r.num', null, value));
      const how = s.target_agreement != null ? 'fitted to agreement ' + s.target_agreement + ' on ' + plural(s.band_fitted_on, 'labelled check')
        : 'given';
      const intro = 'Band ' + s.band[0] + '–' + s.band[1] + ' (' + how + ')' + (s.budget_calls != null ? ', at most ' + plural(s.budget_calls, 'strong call') : '')
        + (s.slice ? ', on the slice ' + s.slice : '') + '. The cheap judge ' + s.cheap + ' grades every check by P(yes); the checks in the band go to ' + s.strong + '.';
      const body = [
        h('div.metrics', null,
          h('div.metric', { 'data-metric': 'Share escalated' },
            h('div.name', null, 'Share escalated'),
            h('div', null, h('span.big.num', null, statText(share))),
            h('div.faint', { style: { fontSize: '11.5px' } }, count(s.escalated) + ' of ' + plural(s.checks, 'check') + ', from ' + count(s.escalated_replies) + ' of ' + count(s.replies) + (s.replies === 1 ? ' reply' : ' replies')),
            fewNote(share))),
        h('div.section-title', null, 'Who decided each verdict'),
        h('div.table-wrap', null, h('table', { 'data-table': 'cascade-decided' },
          h('thead', null, h('tr', null, h('th', null, 'Judge'), h('th.r', null, 'Checks'), h('th.r', null, 'Share'), h('th.r', null, 'Unscored'))),
          h('tbody', null, c.decided.map((d) => h('tr', { 'data-decider': d.judge }, h('td.name-cell', null, breakable(d.judge)),
            h('td.r.num', null, count(d.checks)), h('td.r.num', null, s.checks ? f3(d.checks / s.checks) : '–'), h('td.r.num', null, count(d.unscored))))))),
      ];
      if (s.agreement && s.cheap_agreement) {
        const rows = [['Cascade', s.agreement], ['Cheap judge alone', s.cheap_agreement]];
        body.push(h('div.section-title', null, 'Against reference judge ' + s.reference + ', ' + plural(s.agreement.n, 'check') + ' over ' + plural(s.agreement.clusters, 'item')
          + (s.excluded_items ? ' (' + plural(s.excluded_items, 'calibration training item') + ' left out)' : '')),
          h('div.table-wrap', null, h('table', { 'data-table': 'cascade-agreement' },
            h('thead', null, h('tr', null, h('th', null, ''), ['Agreement', 'Cohen’s kappa', 'Balanced accuracy'].map((l) => h('th.r', null, l)))),
            h('tbody', null, rows.map(([label, a]) => h('tr', { 'data-row': label }, h('td', null, label),
              statCell(a.agreement), statCell(a.kappa), statCell(a.balanced_accuracy)))))),
          fewFootnote(rows.flatMap(([, a]) => [a.agreement, a.kappa, a.balanced_accuracy])),
          s.target_agreement != null ? h('p.note', null, 'The band was fitted on these checks: the agreement is in-sample.') : null);
      }
      body.push(h('div.section-title', null, 'Cost'),
        h('div.table-wrap', null, h('table', { 'data-table': 'cascade-cost' }, h('tbody', null,
          fig('cheap_cost_usd', 'Cheap judge: ' + plural(s.cheap_calls_in_run, 'call') + ' in the run', money(s.cheap_cost_usd)),
          fig('strong_cost_usd', 'Strong judge: ' + count(s.escalated_replies) + ' escalated replies (' + plural(s.strong_calls_in_run, 'call') + ' in the run, ' + money(s.strong_cost_in_run_usd) + ')', money(s.strong_cost_usd)),
          fig('cascade_cost_usd', 'The cascade', money(s.cascade_cost_usd)),
          fig('all_strong_cost_usd', 'The strong judge on every reply', money(s.all_strong_cost_usd)),
          fig('net_saved_usd', 'Saved (' + count(s.calls_saved) + ' strong calls not made)', money(s.net_saved_usd))))),
        h('p.note', null, 'USD at the models’ prices; – where a judge has no price. The strong judge’s costs are estimated at its mean cost per call in this run: each cascade call grades only the escalated checks of a reply, so the cost of every reply is underestimated and the saving understated.'));
      panel.append(h('div.card', { 'data-cascade': s.judge },
        h('div.card-head', null, h('h2', null, breakable(s.judge)), h('p.muted', null, intro)), body));
    }
  }

  // ------------------------------------------------------------------ taxonomy
  function renderTaxonomy(panel) {
    const tax = DATA.taxonomy;
    fill(panel, [problemsCard(tax.problems)]);
    if (!tax.navigations.length) return;
    const nav = tax.navigations[Math.min(state.nav, tax.navigations.length - 1)];
    const rankOf = (m) => (nav.profiles[m].overall.rank == null ? Infinity : nav.profiles[m].overall.rank);
    const models = [...nav.models].sort((a, c) => rankOf(a) - rankOf(c));
    // A node is its names from the domain down (navigation's JSON gives them beside the
    // escaped path); shown joined by ' › ', a name never split on its own '/'.
    const namesOf = (x) => x.names || [];
    const keyOf = (names) => JSON.stringify(names);
    const labelOf = (x) => (namesOf(x).length ? namesOf(x).join(' › ') : 'overall');
    const children = new Map();
    for (const node of nav.nodes) {
      const parent = keyOf(namesOf(node).slice(0, -1));
      if (!children.has(parent)) children.set(parent, []);
      children.get(parent).push(node);
    }
    if (!state.expanded) state.expanded = new Set(nav.nodes.filter((n) => namesOf(n).length === 1).map((n) => keyOf(namesOf(n))));
    const marks = new Map();
    for (const m of models) {
      const p = nav.profiles[m];
      for (const f of p.strengths) marks.set(m + '\u0000' + f.path, 'strength');
      for (const f of p.weaknesses) marks.set(m + '\u0000' + f.path, 'weakness');
    }
    const redraw = () => show('taxonomy', true);
    const heatCell = (node, m) => {
      const c = node.cells[m];
      if (!c || c.mean == null) return h('td.r', { 'data-model': m }, h('span.heat.faint', null, '–'));
      const mark = marks.get(m + '\u0000' + node.path);
      const tip = m + ' at ' + labelOf(node) + ': ' + pct(c.mean) + ' ' + interval(c.low == null ? null : c.low * 100, c.high == null ? null : c.high * 100) + ', n=' + c.n + (c.unscored ? ', ' + c.unscored + ' unscored' : '') + (c.rank != null ? ', rank ' + c.rank : ', not ranked (too few items)') + (mark ? ' · ' + mark : '');
      return h('td.r', { 'data-model': m },
        mark ? h('span', { class: 'mark-' + mark, title: mark }, mark === 'strength' ? '▲ ' : '▼ ') : null,
        h('span.heat', { style: node.status === 'ranked' ? heat(c.mean) : { background: '#f0f2f5', color: '#8a94a3' }, title: tip },
          pct(c.mean), c.rank != null ? h('small', null, '#' + c.rank) : null));
    };
    const rows = [];
    const walk = (parent, depth) => {
      for (const node of children.get(parent) || []) {
        const key = keyOf(namesOf(node));
        const kids = children.get(key) || [];
        const open = state.expanded.has(key);
        const name = namesOf(node)[namesOf(node).length - 1];
        const desc = tax.descriptions[node.path];
        rows.push(h('tr', { 'data-path': node.path, 'data-label': labelOf(node) },
          h('td', null, h('div.node', { style: { paddingLeft: depth * 18 + 'px' } },
            kids.length ? h('button.toggle', {
              type: 'button', 'aria-expanded': String(open), 'aria-label': (open ? 'Collapse ' : 'Expand ') + name,
              onclick: () => { if (open) state.expanded.delete(key); else state.expanded.add(key); redraw(); },
            }, open ? '▾' : '▸') : h('span.spacer'),
            h('span.name', null, name, desc ? h('span.desc', null, desc) : null))),
          h('td.r.num', null, count(node.items), node.status !== 'ranked' ? h('span.ci', null, 'too few') : null),
          models.map((m) => heatCell(node, m)),
          h('td.r.num', null, pct(node.spread))));
        if (open) walk(key, depth + 1);
      }
    };
    walk(keyOf([]), 0);
    const overallRow = h('tr', { 'data-path': '' }, h('td', null, h('span.name', null, 'Overall')),
      h('td.r.num', null, count(nav.overall.items)), models.map((m) => heatCell(nav.overall, m)), h('td.r.num', null, '–'));
    const st = nav.settings;
    panel.append(h('div.card', null,
      h('div.card-head', null, h('h2', null, 'Capability taxonomy'),
        h('div.controls', null,
          tax.navigations.length > 1 ? pickList('Judge', tax.navigations.map((n) => n.judge), state.nav,
            (i) => { state.nav = i; state.expanded = null; redraw(); }, 'taxonomy-judge') : null,
          h('button.btn', { type: 'button', onclick: () => { state.expanded = new Set(nav.nodes.map((n) => keyOf(namesOf(n)))); redraw(); } }, 'Expand all'),
          h('button.btn', { type: 'button', onclick: () => { state.expanded = new Set(); redraw(); } }, 'Collapse all'))),
      h('p.muted', { style: { margin: '0 0 10px' } }, 'Score (0-100) per capability, ranked by ' + (nav.ranked_by || 'the mean of item scores') + ', coloured from low (light) to high (dark), with each model’s rank there. ▲ strength, ▼ weakness: a rank shift beyond ' + st.threshold + ' places with separated ' + Math.round(st.level * 100) + '% intervals. Nodes where a model has fewer than ' + st.min_n + ' scored items are not ranked. Judge ' + nav.judge + (nav.source === 'computed' ? '; computed from the items’ taxonomy tags, unscored items left out.' : '; stored navigation.')),
      h('div.table-wrap', null, h('table.tree', null,
        h('thead', null, h('tr', null, h('th', null, 'Capability'), h('th.r', null, 'Items'), models.map((m) => h('th.r.model-head', null, modelLabel(m))), h('th.r', null, 'Spread'))),
        h('tbody', null, overallRow, rows)))));
    panel.append(h('div.card', null, h('div.card-head', null, h('h2', null, 'Strengths and weaknesses')),
      h('div.profiles', null, models.map((m) => profileCard(nav, m, labelOf)))));
  }
  function profileCard(nav, m, labelOf) {
    const p = nav.profiles[m];
    const finding = (f) => h('li', null, h('strong', null, labelOf(f)), ' rank ' + f.rank + ' (overall ' + f.overall_rank + '), ' + pct(f.cell.mean) + ' vs ' + f.versus + ' ' + pct(f.versus_cell.mean));
    const list = (title, cls, found) => [h('div.section-title', { class: cls }, title + ' (' + found.length + ')'),
      found.length ? h('ul', null, found.map(finding)) : h('p.faint', { style: { margin: '0' } }, 'none')];
    const unstable = p.instability.filter((i) => i.unstable);
    return h('div.profile', { 'data-model': m },
      h('h3', null, modelLabel(m)),
      h('div.muted', null, 'Overall ' + pct(p.overall.mean) + ' ' + (p.overall.rank != null ? '· rank ' + p.overall.rank + ' of ' + nav.models.length : '· not ranked') + ' · n=' + p.overall.n + (p.overall.unscored ? ' · ' + p.overall.unscored + ' unscored' : '')),
      list('Strengths', 'mark-strength', p.strengths), list('Weaknesses', 'mark-weakness', p.weaknesses),
      h('div.section-title', null, 'Unstable parents (' + unstable.length + ')'),
      unstable.length ? h('ul', null, unstable.map((i) => h('li', null, h('strong', null, labelOf(i)), ' σ of children’s ranks ' + i.std.toFixed(2) + ' over ' + i.children))) : h('p.faint', { style: { margin: '0' } }, 'none'));
  }

  // ------------------------------------------------------------------ items
  const VERDICTS = [['', 'Any verdict'], ['pass', 'A check passed'], ['fail', 'A check failed'], ['unscored', 'Unscored'], ['error', 'Call failed']];
  const VERDICT_BITS = { pass: PASS, fail: FAIL, unscored: UNSCORED, error: ERROR };
  let itemsView = null;

  function matches(p) {
    const [, tags, units] = ITEMS[p];
    if (state.hits && !state.hits[p]) return false;
    if (state.tag >= 0 && !tags.includes(state.tag)) return false;
    const mine = state.model >= 0 ? units.filter((u) => u[0] === state.model) : units;
    if (state.model >= 0 && !mine.length) return false;
    if (state.verdict && !mine.some((u) => u[1] & VERDICT_BITS[state.verdict])) return false;
    return true;
  }

  // How people read a tag value, where a protocol says (SCAN: a taxonomy path's names
  // joined by ' › '); the value itself elsewhere.
  const TAG_LABELS = DATA.tag_labels || {};
  const tagText = (facet, value) => (TAG_LABELS[facet] && TAG_LABELS[facet][value]) || value;

  function renderItems(panel) {
    if (IDX.omitted) { panel.append(h('div.card', null, h('p.empty', { 'data-role': 'omitted' }, IDX.omitted))); return; }
    const facets = new Map();
    TAGS.forEach(([facet, value], i) => { if (!facets.has(facet)) facets.set(facet, []); facets.get(facet).push([i, value]); });
    const status = h('span.muted', { 'data-role': 'status', 'aria-live': 'polite' });
    const runSearch = debounce(async (value) => {
      state.q = value.trim();
      state.page = 0;
      if (!state.q) { state.hits = null; refreshItems(); return; }
      status.textContent = 'Searching…';
      const query = state.q;
      const hits = await search(query);
      if (query === state.q) { state.hits = hits; refreshItems(); }
    }, 250);
    const onFilter = (key) => (e) => { state[key] = key === 'verdict' ? e.target.value : +e.target.value; state.page = 0; refreshItems(); };
    const filters = h('div.filters', null,
      h('label.search', null, 'Search ids, conversations, responses, reasons',
        h('input', { type: 'search', placeholder: 'Search…', 'data-control': 'search', value: state.q, oninput: (e) => runSearch(e.target.value) })),
      h('label', null, 'Model', h('select', { 'data-control': 'model', onchange: onFilter('model') },
        h('option', { value: -1 }, 'All models'), MODELS.map((m, i) => h('option', { value: i, selected: i === state.model }, m)))),
      h('label', null, 'Verdict', h('select', { 'data-control': 'verdict', onchange: onFilter('verdict') },
        VERDICTS.map(([v, label]) => h('option', { value: v, selected: v === state.verdict }, label)))),
      h('label', null, 'Tag', h('select', { 'data-control': 'tag', onchange: onFilter('tag') },
        h('option', { value: -1 }, 'All tags'),
        [...facets].map(([facet, values]) => h('optgroup', { label: humanize(facet) },
          values.map(([i, v]) => h('option', { value: i, selected: i === state.tag }, tagText(facet, v))))))));
    const prev = h('button.btn', { type: 'button', 'data-act': 'prev', onclick: () => { state.page--; refreshItems(); } }, '‹ Prev');
    const next = h('button.btn', { type: 'button', 'data-act': 'next', onclick: () => { state.page++; refreshItems(); } }, 'Next ›');
    const pageLabel = h('span.num', { 'data-role': 'page' });
    const list = h('div.list', { 'data-role': 'list' });
    const detail = h('div.detail', { 'data-role': 'detail' });
    const split = h('div.split', null, h('div.list-pane', null,
      h('div.pager', null, status, h('div.pages', null, prev, pageLabel, next)), list), detail);
    panel.append(h('div.card', null, filters), split);
    itemsView = { status, prev, next, pageLabel, list, detail, split };
    refreshItems();
  }

  function unitChip(u) {
    const model = MODELS[u[0]];
    const j = boardJudge();
    const score = j >= 0 ? u[2 + j] : null;
    let label, cls = 'chip.score';
    if (u[1] & ERROR) { label = 'no answer'; cls = 'chip.error'; }
    else if (j >= 0 && score == null) { label = 'unscored'; cls = 'chip.unscored'; }
    else label = score == null ? 'not judged' : pct(score);
    return h('span.' + cls, { title: model + ': ' + label, 'data-model': model }, dot(model),
      h('span.chip-model', null, breakable(model)), h('span.chip-score', null, label));
  }

  function refreshItems() {
    if (!itemsView) return;
    const v = itemsView;
    const found = [];
    for (let p = 0; p < ITEMS.length; p++) if (matches(p)) found.push(p);
    const pages = Math.max(1, Math.ceil(found.length / PAGE_SIZE));
    state.page = Math.max(0, Math.min(state.page, pages - 1));
    const start = state.page * PAGE_SIZE;
    const shown = found.slice(start, start + PAGE_SIZE);
    v.status.textContent = found.length
      ? 'Items ' + count(start + 1) + '–' + count(start + shown.length) + ' of ' + count(found.length) + (found.length < ITEMS.length ? ' (filtered from ' + count(ITEMS.length) + ')' : '')
      : 'No items match.';
    v.pageLabel.textContent = 'Page ' + count(state.page + 1) + ' of ' + count(pages);
    v.prev.disabled = state.page === 0;
    v.next.disabled = state.page >= pages - 1;
    const first = ['scenario', 'task'];
    const order = (facet) => (first.includes(facet) ? first.indexOf(facet) : first.length);
    v.list.replaceChildren(...shown.map((p) => {
      const [id, tags, units] = ITEMS[p];
      const mine = state.model >= 0 ? units.filter((u) => u[0] === state.model) : units;
      const chosen = tags.map((t) => TAGS[t]).sort((a, b) => order(a[0]) - order(b[0])).slice(0, 3);
      return h('button.row', {
        type: 'button', 'data-pos': p, 'aria-current': String(p === state.open),
        onclick: () => go('items/' + p),
      }, h('div.row-head', null, h('span.id', null, id),
        chosen.map(([facet, value]) => h('span.chip', { title: facet }, tagText(facet, value)))),
      h('div.chips', null, mine.map(unitChip)));
    }));
    v.split.classList.toggle('open', state.open != null);
    renderDetail();
  }

  let detailToken = 0;
  async function renderDetail() {
    const v = itemsView;
    const p = state.open;
    const token = ++detailToken;
    if (p == null) {
      v.detail.replaceChildren(h('div.card', null, h('p.empty', null, 'Choose an item to see its conversation, responses and verdicts.')));
      return;
    }
    v.detail.replaceChildren(h('div.card', null, h('p.empty', null, 'Loading…')));
    let rec;
    try {
      [rec] = await records([p]);
    } catch (err) {
      v.detail.replaceChildren(h('div.card', null, h('p.flag', null, 'Could not load the item: ' + err.message)));
      return;
    }
    if (token !== detailToken) return;
    v.detail.replaceChildren(itemDetail(p, rec));
    if (window.matchMedia('(max-width: 900px)').matches) v.split.scrollIntoView({ block: 'start' });
  }

  const RULES = {
    weighted: 'score = sum of the weights of the passed checks',
    any: 'score = 1 if any check passes (the checks are alternatives)',
    all: 'score = 1 only if every check passes',
    mean: 'score = share of checks passed',
  };

  function itemDetail(p, rec) {
    const [id, tags, units] = ITEMS[p];
    const back = h('button.btn.back', { type: 'button', onclick: () => go('items') }, '‹ Back to the list');
    const head = h('div.card', { 'data-item': id }, back,
      h('h2', null, id),
      h('div.chips', null, tags.map((t) => h('span.chip', null, TAGS[t][0] + ': ' + tagText(...TAGS[t])))),
      h('p.note', null, 'Rule ' + rec.rule + ': ' + (RULES[rec.rule] || '')),
      h('div.section-title', null, 'Conversation'),
      rec.messages.map((m) => h('div.msg', { class: m.role }, h('div.role', null, m.role), h('pre.text', null, codeText(m.text)))),
      rec.reference != null ? h('details', null, h('summary', null, 'Reference answer'), h('pre.text.ref', null, codeText(rec.reference))) : null,
      h('details.checklist', { open: !JUDGES.length || !rec.responses.length },
        h('summary', null, 'Checklist: ' + plural(rec.checks.length, 'check') + ' with weights and sources'),
        h('div.table-wrap', null, h('table', null,
        h('thead', null, h('tr', null, h('th', null, 'Check'), h('th', null, 'Requirement'), h('th.r', null, 'Weight'), h('th', null, 'Source'))),
        h('tbody', null, rec.checks.map((c) => h('tr', null, h('td.mono', null, c.id), h('td', null, c.text), h('td.r.num', null, c.weight == null ? '–' : c.weight), h('td.faint', null, c.source))))))));
    const responses = rec.responses.filter((r) => state.model < 0 || r.model === state.model);
    const unitOf = new Map(units.map((u) => [u[0], u]));
    return h('div', null, head, h('div.card', null,
      h('div.section-title', { style: { marginTop: '0' } }, 'Responses (' + responses.length + ')'),
      responses.length ? responses.map((r) => responseBlock(rec, r, unitOf.get(r.model))) : h('p.muted', null, 'No responses.')));
  }

  /** One judge's verdict on one check: badge, P(yes), reason, and the raw answer if unscored. */
  function verdictLine(judge, v) {
    const badge = !v ? h('span.verdict', null, 'NONE') : v.passed === 1 ? h('span.verdict.yes', null, 'YES')
      : v.passed === 0 ? h('span.verdict.no', null, 'NO') : h('span.verdict.unscored', null, 'UNSCORED');
    return h('div.vjudge', { 'data-judge': judge },
      JUDGES.length > 1 ? h('span.jname', null, breakable(judge)) : null,
      h('div.vmark', null, badge,
        v && v.pYes != null ? h('span.ci', null, 'P(yes) ' + v.pYes.toFixed(2)) : null),
      h('div', null, h('div.reason', null, v ? codeText(v.reason || '') : 'no verdict'),
        v && v.raw != null ? h('details', null, h('summary', null, 'Judge’s raw answer'), h('pre', null, v.raw)) : null));
  }

  function responseBlock(rec, r, unit) {
    const model = MODELS[r.model];
    const scores = JUDGES.map((judge, j) => [judge, unit ? unit[2 + j] : null]);
    const flagged = unit && (unit[1] & (UNSCORED | ERROR));
    const body = [];
    if (r.error != null) body.push(h('div.error-box', null, 'The model call failed: ' + r.error));
    if (r.content != null) {
      const text = h('pre.text', { 'data-role': 'response' }, codeText(r.content));
      body.push(text);
      if (r.content.length > 1200) {
        text.classList.add('clamp');
        body.push(h('button.linkish', { type: 'button', onclick: (e) => { text.classList.toggle('clamp'); e.target.textContent = text.classList.contains('clamp') ? 'Show all' : 'Show less'; } }, 'Show all'));
      }
    }
    if (!JUDGES.length) body.push(h('p.note', null, 'Not judged yet.'));
    const byJudge = JUDGES.map((judge, j) => new Map(r.verdicts.filter((v) => v.judge === j).map((v) => [v.check, v])));
    JUDGES.forEach((judge, j) => {
      const unscored = rec.checks.filter((c, k) => !byJudge[j].has(k) || byJudge[j].get(k).passed == null).length;
      if (unscored && r.error == null) {
        body.push(h('div.flag', null, 'Unscored by ' + judge + ': ' + plural(unscored, 'check') + ' without a usable verdict.'));
      }
    });
    if (JUDGES.length) {
      body.push(h('div.section-title', null, JUDGES.length > 1 ? 'Verdicts' : 'Verdicts · ' + JUDGES[0]),
        h('div.verdicts', null, rec.checks.map((c, k) => h('div.vrow', { 'data-check': c.id },
          h('div.req', null, h('span.mono.faint', null, c.id + ' '), c.text, c.weight != null ? h('span.faint', null, ' · weight ' + c.weight) : null),
          JUDGES.map((judge, j) => verdictLine(judge, byJudge[j].get(k)))))));
    }
    return h('div.response', { class: flagged ? 'flagged' : null, 'data-model': model },
      h('div.response-head', null, h('strong', null, modelLabel(model)),
        rec.responses.some((o) => o.model === r.model && o.sample) ? h('span.faint', null, ' · sample ' + (r.sample + 1)) : null,
        h('span.chips', null, scores.map(([judge, sc]) => h('span.chip', { class: sc == null ? 'unscored' : 'score', title: judge }, (JUDGES.length > 1 ? judge + ' ' : '') + (sc == null ? 'unscored' : 'score ' + pct(sc)))),
          h('span.chip', null, count(r.prompt) + ' + ' + count(r.completion) + ' tokens'),
          r.latency ? h('span.chip', null, r.latency.toFixed(2) + ' s') : null)),
      body);
  }

  // ------------------------------------------------------------------ compare
  const pValue = (p) => (p == null ? '–' : p < 0.001 ? p.toExponential(1) : p.toFixed(3));

  /** Two models' items side by side: the pair picked, its paired delta, and the items that
      moved most with both answers and the checks that flipped. */
  function renderCompare(panel) {
    const C = DATA.compare;
    const body = h('div.stack');
    function draw(k) {
      const p = C.pairs[k];
      const ci = ' ' + signedInterval(p.ci && p.ci[0], p.ci && p.ci[1]);
      const moved = p.items.map((it) => h('div.cmp-item', { 'data-item': it.id },
        h('div.response-head', null, h('strong.mono', null, it.id),
          h('span.chip', null, f2(it.baseline_score) + ' → ' + f2(it.candidate_score) + ' (' + signed(it.delta) + ')')),
        it.flipped.length ? h('ul.cmp-flips', null, it.flipped.map((c) => h('li', null,
          (c.baseline ? 'met → unmet: ' : 'unmet → met: '), c.text))) : null,
        h('div.cmp-sides', null,
          [[p.baseline, it.baseline_answer], [p.candidate, it.candidate_answer]].map(([name, answer]) =>
            h('div.cmp-side', null, h('div.section-title', null, name),
              h('pre.text', { 'data-role': 'answer' }, answer == null ? '(no answer)' : codeText(answer)))))));
      body.replaceChildren(
        h('p', { 'data-role': 'delta' }, signed(p.delta) + ci + ' points over ' + plural(p.n, 'paired item')
          + ' · p = ' + pValue(p.p_value) + ' · checks met → unmet ' + count(p.flips.pass_to_fail)
          + ', unmet → met ' + count(p.flips.fail_to_pass) + ' (McNemar p = ' + pValue(p.flips.mcnemar_p) + ')'),
        ...(moved.length ? moved : [h('p.muted', null, 'No item moved.')]));
    }
    const labels = C.pairs.map((p) => p.baseline + ' → ' + p.candidate);
    const picker = h('div');
    const pick = (k) => {
      picker.replaceChildren(pickList('Pair', labels, k, pick, 'pair'));
      draw(k);
    };
    pick(0);
    panel.append(card('Compare',
      'Candidate minus baseline on the items both answered, judged by ' + C.judge + ' (paired bootstrap interval, '
      + 'sign-flip test). `checkbench compare RUN --baseline A --candidate B` adds the delta per tag.'
      + (C.models > 8 ? ' The first 8 models of ' + C.models + ' are paired.' : ''),
      picker, body));
  }

  // ------------------------------------------------------------------ audit
  // `checkbench audit`: the benchmark's figures with and without the flagged checks, then the
  // flagged checks with their reasons (docs/audit.md).
  function renderAudit(panel) {
    const a = DATA.audit;
    const figure = (f) => (f.value == null ? h('span.faint', null, '– (' + f.note + ')')
      : h('span', null, (f.value > 1 ? f2(f.value) : f3(f.value)) + ' ',
        h('span.faint', null, f.low == null ? '' : interval(f.low, f.high, f.value > 1 ? 2 : 3)),
        h('div.faint', null, 'n = ' + count(f.n) + ' ' + f.of)));
    const rows = [['separability', 'Separability (95% intervals apart)'],
      ['paired_separability', 'Paired separability (paired item bootstrap)'],
      ['rank_stability', 'Rank stability (mean Kendall τb)'],
      ['effective_checks', 'Effective number of checks (participation ratio)']];
    const kept = a.checks - a.refinement.checks_dropped;
    const figures = h('div.table-wrap', null, h('table', { 'data-table': 'audit-figures' },
      h('thead', null, h('tr', null, h('th', null, 'Figure'), h('th.r', null, 'Full (' + count(a.checks) + ' checks)'),
        h('th.r', null, 'Refined (' + count(kept) + ' checks)'))),
      h('tbody', null, rows.map(([key, label]) => h('tr', null, h('td', null, label),
        h('td.r', null, figure(a.full[key])), h('td.r', null, figure(a.refined[key])))))));
    const flags = Object.entries(a.flags).map(([k, n]) => k + ' ' + count(n)).join(', ') || 'none';
    const tau = a.refinement.leaderboard_tau;
    const intro = plural(a.models.length, 'model') + ', ' + plural(a.items, 'item') + ', '
      + plural(a.checks, 'check') + ', judge ' + a.judge + '. Flagged: ' + count(a.flagged_checks)
      + ' (' + flags + '); refined: ' + plural(a.refinement.checks_dropped, 'check') + ' left out, '
      + 'Kendall τb of the full and refined leaderboards ' + (tau.value == null ? '–' : f3(tau.value)) + '.';
    const limits = a.limits.length ? h('ul.faint', null, a.limits.map((l) => h('li', null, 'Cannot audit: ' + l))) : null;
    const flagged = h('div.table-wrap', null, h('table', { 'data-table': 'audit-checks' },
      h('thead', null, h('tr', null, ['Item', '#', 'Check', 'Pass', 'r', 'Why'].map((c) => h('th', null, c)))),
      h('tbody', null, a.flagged.map((c) => h('tr', null, h('td', null, breakable(c.item_id)),
        h('td.r.num', null, String(c.number)), h('td', null, c.text), h('td.r.num', null, f3(c.pass_rate)),
        h('td.r.num', null, f3(c.discrimination)), h('td', null, c.flags.map((f) => f.reason).join('; ')))))));
    panel.append(card('Audit', intro, limits, figures),
      card('Flagged checks', 'The ' + plural(a.flagged.length, 'check') + ' with the most telling flags first, of '
        + count(a.flagged_checks) + ' flagged.', flagged));
  }

  // ------------------------------------------------------------------ run facts
  function renderRun(panel) {
    const f = FACTS;
    const facts = h('dl.kv', null,
      [['Run', f.run], ['Directory', f.path], ['Benchmark', f.benchmark == null ? '–' : String(f.benchmark)],
        ['Report made', f.generated], ['Items', count(f.items) + ' (' + plural(f.checks, 'check') + ')'],
        ['Unscored items', f.policy === 'zero' ? 'count as 0' : 'are left out']]
        .map(([k, val]) => [h('dt', null, k), h('dd', null, val)]));
    const warnCell = (n) => h('td.r.num', { class: n ? 'warn-num' : 'zero' }, count(n));
    const models = h('table', null,
      h('thead', null, h('tr', null, h('th', null, 'Model'), h('th.r', null, 'Responses'),
        h('th.r', null, 'No answer'), f.judges.map((j) => h('th.r.name-head', null, 'Unscored by', h('span.head-name', null, breakable(j.name)))))),
      h('tbody', null, f.models.map((m) => h('tr', null,
        h('td.name-cell', null, modelLabel(m.name)), h('td.r.num', null, count(m.responses)), warnCell(m.errors),
        f.judges.map((j) => warnCell(j.unscored_items[m.name] || 0))))));
    // Mode and prompts only when some judge has them (imported verdicts have neither).
    const anyMode = f.judges.some((j) => j.mode), anyPrompts = f.judges.some((j) => j.prompts.length);
    const judges = f.judges.length ? h('table', null,
      h('thead', null, h('tr', null, h('th', null, 'Judge'), anyMode ? h('th', null, 'Mode') : null,
        anyPrompts ? h('th', null, 'Prompts') : null,
        h('th.r', null, 'Verdicts'), h('th.r.wrap-head', null, 'Unscored verdicts'))),
      h('tbody', null, f.judges.map((j) => h('tr', null,
        h('td.name-cell', null, breakable(j.name)), anyMode ? h('td', null, j.mode || '–') : null,
        anyPrompts ? h('td', null, j.prompts.length ? j.prompts.map((p) => h('span.chip', null, p)) : '–') : null,
        h('td.r.num', null, count(j.verdicts)), warnCell(j.unscored_verdicts)))))
      : h('p.muted', null, 'Not judged yet.');
    panel.append(
      h('div.grid-2.run-head', null, card('Run', null, facts),
        card('Judges', anyPrompts ? 'Prompt versions as recorded by the judge stage.' : null, h('div.table-wrap', null, judges))),
      h('div.stack', { style: { marginTop: '18px' } },
        card('Models', null, h('div.table-wrap', null, models)), usageCard(f)));
  }

  function usageCard(f) {
    const priced = Object.keys(f.prices).length > 0;
    const roles = [...new Set(f.usage.map((u) => u.role))];
    const rows = [];
    const total = { calls: 0, errors: 0, prompt_tokens: 0, completion_tokens: 0, time_s: 0, cost: 0 };
    let costKnown = true;  // every row priced
    const line = (label, u, cls, model) => h('tr', { class: cls },
      h('td', null, label), h('td.name-cell', null, model ? modelLabel(model) : ''),
      ['calls', 'errors', 'prompt_tokens', 'completion_tokens'].map((k) => h('td.r.num', { class: k === 'errors' && u[k] ? 'warn-num' : null }, count(u[k]))),
      h('td.r.num', null, seconds(u.time_s)),
      priced ? h('td.r.num', { title: u.partial ? 'some models have no price' : null }, u.cost == null ? '–' : (u.partial ? '≥ ' : '') + money(u.cost)) : null);
    for (const role of roles) {
      const mine = f.usage.filter((u) => u.role === role);
      const sub = { calls: 0, errors: 0, prompt_tokens: 0, completion_tokens: 0, time_s: 0, cost: 0 };
      let known = true;
      for (const u of mine) {
        rows.push(line(role, u, null, u.model));
        for (const k of ['calls', 'errors', 'prompt_tokens', 'completion_tokens', 'time_s']) { sub[k] += u[k]; total[k] += u[k]; }
        if (u.cost == null) known = false; else { sub.cost += u.cost; total.cost += u.cost; }
      }
      if (!known) { sub.partial = true; costKnown = false; }
      if (mine.length > 1) rows.push(line(role + ' total', sub, 'subtotal'));
    }
    if (!costKnown) total.partial = true;
    if (roles.length > 1) rows.push(line('All roles', total, 'subtotal'));
    const notes = [];
    notes.push('Call time adds up the latency of every call; calls run concurrently, so the run took less wall time.');
    if (priced) {
      notes.push('Cost in USD per million input, output tokens (batched calls spared the discount), from the models file as the run used it or from --price: ' + Object.entries(f.prices).map(([m, p]) => m + ' ' + p.input + ', ' + p.output + (p.batch_discount !== 0.5 ? ', batch discount ' + p.batch_discount : '') + ' (' + p.from + ')').join('; ') + '.');
      if (f.unpriced.length) notes.push('No price given for: ' + f.unpriced.join(', ') + '.');
      if (f.unused_prices.length) notes.push('Priced but not in this run: ' + f.unused_prices.join(', ') + '.');
    } else notes.push('Give the models a price in the models file, or report with --price MODEL=INPUT,OUTPUT (USD per million tokens), to see costs.');
    return card('Tokens, time and cost per role', null,
      f.usage.length ? h('div.table-wrap', null, h('table', { 'data-table': 'usage' },
        h('thead', null, h('tr', null, ['Role', 'Model', 'Calls', 'Failed', 'Prompt tokens', 'Completion tokens', 'Call time'].map((t, i) => h(i > 1 ? 'th.r' : 'th', null, t)), priced ? h('th.r', null, 'Cost') : null)),
        h('tbody', null, rows))) : h('p.muted', null, 'No model calls recorded in this run.'),
      notes.map((n) => h('p.note', null, n)));
  }

  // ------------------------------------------------------------------ sideways scrolling
  // Every .table-wrap (and the tab bar) scrolls inside its card, never the page, and shows
  // it: its box gets data-overflow="true" while the content is wider than the box, and a
  // shadow on each edge that has more to see.
  const cueBoxes = new WeakMap();
  function updateCue(wrap) {
    const box = cueBoxes.get(wrap);
    if (!box) return;
    const more = wrap.scrollWidth - wrap.clientWidth > 1;
    box.dataset.overflow = String(more);
    box.classList.toggle('more-left', more && wrap.scrollLeft > 1);
    box.classList.toggle('more-right', more && wrap.scrollLeft + wrap.clientWidth < wrap.scrollWidth - 1);
  }
  const cueSizes = new ResizeObserver((entries) => {
    for (const entry of entries) updateCue(entry.target.classList.contains('scrolls') ? entry.target : entry.target.parentElement);
  });
  function scrollCue(wrap, extra) {
    if (cueBoxes.has(wrap)) return;
    const box = h('div.scroll-box', { class: extra });
    wrap.replaceWith(box);
    box.append(wrap);
    wrap.classList.add('scrolls');
    cueBoxes.set(wrap, box);
    wrap.addEventListener('scroll', () => updateCue(wrap), { passive: true });
    cueSizes.observe(wrap);
    if (wrap.firstElementChild) cueSizes.observe(wrap.firstElementChild);
    updateCue(wrap);
  }
  new MutationObserver((changes) => {
    for (const change of changes) {
      for (const node of change.addedNodes) {
        if (!(node instanceof Element)) continue;
        if (node.matches('.table-wrap')) scrollCue(node);
        node.querySelectorAll('.table-wrap').forEach((w) => scrollCue(w));
      }
    }
  }).observe(main, { childList: true, subtree: true });

  // ------------------------------------------------------------------ start
  if (document.getElementById('cb-lazy')) Object.assign(DATA, await unpack('cb-lazy'));
  shell();
  scrollCue(document.querySelector('nav.tabs'), 'tabs-box');
  window.addEventListener('hashchange', route);
  route();
  performance.mark('cb-rendered');
})();
