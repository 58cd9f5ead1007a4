// The exposure page's script (docs/SHARE.md, Exposures). A copy is asked for with a POST carrying
// the listing's nonce (and the code), only when the person presses a file's button; the clean text
// that comes back is shown as text, never as markup.
'use strict';
(() => {
  const data = JSON.parse(document.getElementById('expose-data').textContent);
  const $ = (id) => document.getElementById(id);
  const codeInput = $('code');
  const statusLine = $('status');
  const shown = $('content');
  const buttons = Array.from(document.querySelectorAll('button.copy'));

  const say = (text, isError) => {
    statusLine.textContent = text;
    statusLine.classList.toggle('error', Boolean(isError));
  };

  function show(copy) {
    shown.replaceChildren();
    const title = document.createElement('h2');
    title.id = 'content-title';
    title.textContent = copy.file;
    const list = document.createElement('ol');
    list.className = 'code';
    list.id = 'copy-text';
    const lines = copy.text.split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    for (const line of lines) {
      const item = document.createElement('li');
      item.textContent = line;
      list.append(item);
    }
    const download = document.createElement('a');
    download.className = 'button';
    download.id = 'download';
    download.href = URL.createObjectURL(new Blob([copy.text], { type: 'text/plain' }));
    download.download = copy.file.split('/').pop();
    download.textContent = 'Download';
    shown.append(title, list, download);
    shown.hidden = false;
  }

  async function ask(file) {
    for (const b of buttons) b.disabled = true;
    say(`Making a clean copy of ${file}…`);
    let response;
    try {
      response = await fetch(`/x/${data.exposure_id}/copy`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          nonce: data.nonce,
          file,
          ...(codeInput && codeInput.value ? { code: codeInput.value } : {}),
        }),
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch {
      for (const b of buttons) b.disabled = false;
      return say('The service did not answer. Check your connection and try again.', true);
    }
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      say(body.message ?? `The service refused (${response.status}).`, true);
      const over = body.error === 'gone';
      for (const b of buttons) b.disabled = over;
      if (codeInput && ['wrong_code', 'code_required'].includes(body.error)) codeInput.focus();
      return;
    }
    show(body);
    const types = Object.entries(body.tokens_by_type).map(([type, n]) => `${n} ${type}`);
    say(
      `Clean copy ${body.copy_number}: ${body.values_replaced} value(s) replaced${types.length ? ` (${types.join(', ')})` : ''}. ` +
        (body.used_up
          ? 'That was the last copy this link gives.'
          : `${body.copies_left} more cop${body.copies_left === 1 ? 'y' : 'ies'} left.`),
    );
    for (const b of buttons) b.disabled = body.used_up;
  }

  for (const button of buttons) {
    button.addEventListener('click', () => void ask(data.files[Number(button.dataset.index)]));
  }
})();
