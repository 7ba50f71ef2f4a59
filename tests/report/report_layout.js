() => {
  // What the layout tests find wrong on the report's open tab, as a list of sentences
  // (tests/test_report_layout.py evaluates this function in the page).
  const problems = [];
  const where = (el) => {
    const card = el.closest('.card, .tile, header');
    const head = card && card.querySelector('h2, h3, .label');
    return el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : '')
      + ' "' + (el.textContent || '').trim().slice(0, 40) + '" in ' + (head ? head.textContent.trim().slice(0, 40) : '?');
  };
  const shown = (el) => el.getClientRects().length > 0;
  const scroller = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  const page = document.scrollingElement;
  if (page.scrollWidth > innerWidth) problems.push('page scrolls sideways: ' + page.scrollWidth + ' > ' + innerWidth);
  const panel = document.querySelector('section[data-panel]:not([hidden])');
  // Tables: wider than their box only inside a scrolling wrapper that shows a cue.
  for (const table of panel.querySelectorAll('table')) {
    if (!shown(table)) continue;
    let box = table.parentElement;
    while (box && box !== document.body && getComputedStyle(box).overflowX === 'visible') box = box.parentElement;
    if (box && box !== document.body && box.scrollWidth > box.clientWidth + 1) {
      const cue = box.closest('.scroll-box');
      if (!scroller(box)) problems.push('table cut by a box that does not scroll: ' + where(table));
      else if (!cue || cue.dataset.overflow !== 'true') problems.push('table scrolls with no cue: ' + where(table));
      else if (+getComputedStyle(cue, '::after').opacity < 0.5) problems.push('scroll cue not shown: ' + where(table));
    }
    for (const cell of table.querySelectorAll('th, td')) {
      if (shown(cell) && cell.scrollWidth > cell.clientWidth + 1) problems.push('cell content wider than its cell: ' + where(cell));
    }
  }
  // Nothing sticks out of its card, unless it is inside a box that scrolls sideways.
  for (const card of panel.querySelectorAll('.card, .tile')) {
    const edge = card.getBoundingClientRect();
    for (const el of card.querySelectorAll('*')) {
      if (!shown(el)) continue;
      let inner = el.parentElement, scrolls = false;
      while (inner && inner !== card) { if (scroller(inner)) { scrolls = true; break; } inner = inner.parentElement; }
      if (scrolls) continue;
      const r = el.getBoundingClientRect();
      if (r.width && (r.right > edge.right + 1 || r.left < edge.left - 1)) {
        problems.push('sticks out of its card by ' + Math.round(Math.max(r.right - edge.right, edge.left - r.left)) + 'px: ' + where(el));
      }
    }
  }
  // A <select> shows its chosen option whole.
  const ruler = document.createElement('span');
  ruler.style.position = 'absolute';
  ruler.style.visibility = 'hidden';
  ruler.style.whiteSpace = 'pre';
  document.body.append(ruler);
  for (const select of panel.querySelectorAll('select')) {
    if (!shown(select) || select.selectedIndex < 0) continue;
    ruler.style.font = getComputedStyle(select).font;
    ruler.textContent = select.options[select.selectedIndex].text;
    if (ruler.offsetWidth > select.clientWidth - 24) problems.push('select cuts its choice: ' + where(select));
  }
  ruler.remove();
  return problems;
}
