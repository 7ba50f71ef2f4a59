/* checkbench labelling page (view --annotate). Texts come as JSON and are shown with
   textContent only, never as markup; a label is POSTed with the page's CSRF token. */
(function () {
  'use strict';
  const config = JSON.parse(document.getElementById('cb-annotate').textContent);
  const PAGE = 20;
  const queue = document.querySelector('[data-role=queue]');
  const status = document.querySelector('[data-role=status]');
  const range = document.querySelector('[data-role=range]');
  const prev = document.querySelector('[data-role=prev]');
  const next = document.querySelector('[data-role=next]');
  let total = 0;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  function page() {
    const found = /^#page=(\d+)$/.exec(location.hash);
    return found ? Number(found[1]) : 0;
  }

  function counted(labelled) {
    status.textContent = total + ' checks in the queue; ' + labelled + ' labelled by ' + config.annotator;
  }

  async function save(entry, card, passed, note) {
    const saved = card.querySelector('.saved');
    saved.classList.remove('error');
    saved.textContent = 'Saving…';
    const body = {
      item_id: entry.item_id, model: entry.model, sample: entry.sample,
      check_id: entry.check_id, passed: passed, note: note,
    };
    try {
      const response = await fetch('/api/annotate/label', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': config.token },
        body: JSON.stringify(body),
      });
      if (!response.ok) throw new Error(await response.text());
      const result = await response.json();
      entry.label = { passed: passed, note: note };
      show(entry, card);
      saved.textContent = 'Saved';
      counted(result.labelled);
    } catch (error) {
      saved.classList.add('error');
      saved.textContent = 'Not saved: ' + error.message;
    }
  }

  function show(entry, card) {
    const label = entry.label;
    card.dataset.label = label === null ? '' : (label.passed ? 'pass' : 'fail');
    for (const button of card.querySelectorAll('button[data-verdict]')) {
      const mine = label !== null && (button.dataset.verdict === 'pass') === label.passed;
      button.setAttribute('aria-pressed', String(mine));
    }
  }

  function card(entry, index) {
    const node = el('section', 'entry');
    node.dataset.item = entry.item_id;
    node.dataset.model = entry.model;
    node.dataset.sample = String(entry.sample);
    node.dataset.check = entry.check_id;
    node.dataset.index = String(index);
    const reasons = el('ul', 'reasons');
    for (const reason of entry.reasons) reasons.append(el('li', '', reason));
    node.append(reasons);
    node.append(el('div', 'where', '#' + (index + 1) + ' · item ' + entry.item_id + ' · model ' + entry.model + ' · sample ' + entry.sample + ' · check ' + entry.check_id));
    for (const [role, content] of entry.messages) {
      node.append(el('div', 'role', role));
      node.append(el('div', 'text message', content));
    }
    if (entry.reference) {
      node.append(el('div', 'role', 'reference'));
      node.append(el('div', 'text reference', entry.reference));
    }
    node.append(el('div', 'role', 'response of ' + entry.model));
    node.append(el('div', 'text response', entry.response));
    node.append(el('div', 'check', entry.check));
    const actions = el('div', 'actions');
    const note = el('textarea', 'note');
    note.placeholder = 'Note (optional)';
    note.maxLength = 2000;
    note.value = entry.label ? entry.label.note : '';
    for (const [verdict, text] of [['pass', 'Pass'], ['fail', 'Fail']]) {
      const button = el('button', '', text);
      button.type = 'button';
      button.dataset.verdict = verdict;
      button.addEventListener('click', () => save(entry, node, verdict === 'pass', note.value));
      actions.append(button);
    }
    note.addEventListener('change', () => {
      if (entry.label !== null) save(entry, node, entry.label.passed, note.value);
    });
    actions.append(note, el('span', 'saved', entry.label ? 'Saved' : ''));
    node.append(actions);
    show(entry, node);
    return node;
  }

  async function load() {
    const offset = page() * PAGE;
    const response = await fetch('/api/annotate/queue?offset=' + offset + '&limit=' + PAGE);
    if (!response.ok) {
      status.textContent = 'Cannot read the queue: ' + (await response.text());
      return;
    }
    const data = await response.json();
    total = data.total;
    counted(data.labelled);
    queue.replaceChildren(...data.entries.map((entry, k) => card(entry, offset + k)));
    range.textContent = total ? 'Checks ' + (offset + 1) + '–' + (offset + data.entries.length) + ' of ' + total : 'No checks to label';
    prev.disabled = offset === 0;
    next.disabled = offset + PAGE >= total;
    queue.dataset.ready = 'true';
  }

  prev.addEventListener('click', () => { location.hash = 'page=' + Math.max(0, page() - 1); });
  next.addEventListener('click', () => { location.hash = 'page=' + (page() + 1); });
  window.addEventListener('hashchange', () => { queue.dataset.ready = 'false'; load(); });
  load();
})();
