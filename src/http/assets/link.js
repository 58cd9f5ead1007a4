// The link page's script (docs/SHARE.md). The key is the part of the link after `#`: browsers
// never send it, so the service only ever holds ciphertext. Opening is a POST with the page's
// nonce, made only when the person presses Open; a preview fetch of the page opens nothing.
'use strict';
(() => {
  const data = JSON.parse(document.getElementById('link-data').textContent);
  const $ = (id) => document.getElementById(id);
  const form = $('open-form');
  const button = $('open');
  const codeInput = $('code');
  const statusLine = $('status');
  const shown = $('content');
  const utf8 = new TextEncoder();

  const say = (text, isError) => {
    statusLine.textContent = text;
    statusLine.classList.toggle('error', Boolean(isError));
  };
  // The browser's own decoder where it has one; else a plain loop, many times faster on a
  // megabyte than Uint8Array.from with a mapping function.
  const fromBase64 = (text) => {
    if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(text);
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  };
  const keyBytes = () => {
    const text = location.hash.slice(1);
    if (!/^[A-Za-z0-9_-]{43}$/.test(text)) return null;
    const bytes = fromBase64(text.replace(/-/g, '+').replace(/_/g, '/') + '=');
    return bytes.length === 32 ? bytes : null;
  };
  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

  async function keyCheck(raw) {
    const key = await crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, utf8.encode('svc-link-v1 key check')));
    return hex(mac.subarray(0, 8));
  }

  async function openPart(key, sealedB64, aad) {
    const sealed = fromBase64(sealedB64);
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: sealed.subarray(0, 12), additionalData: utf8.encode(aad) },
      key,
      sealed.subarray(12),
    );
    return new Uint8Array(plain);
  }

  const TEXT_TYPES = [
    'application/json',
    'application/xml',
    'application/javascript',
    'application/x-yaml',
    'application/yaml',
    'application/toml',
    'application/sql',
    'application/x-sh',
  ];
  const LINES_PER_BLOCK = 500;
  const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp'];
  const baseType = (type) => type.split(';')[0].trim().toLowerCase();
  const isText = (type) =>
    type.startsWith('text/') || TEXT_TYPES.includes(type) || type.endsWith('+json') || type.endsWith('+xml');

  function showText(text, name) {
    if (name) {
      // A file: numbered lines, as code is read. Each block of lines is two texts, the numbers
      // and the lines, and the browser lays out only the blocks in view (content-visibility), so
      // a long file shows as fast as a short one.
      const lines = text.split('\n');
      if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
      const code = document.createElement('div');
      code.className = 'code';
      code.style.setProperty('--digits', String(String(lines.length).length));
      for (let first = 0; first < lines.length; first += LINES_PER_BLOCK) {
        const part = lines.slice(first, first + LINES_PER_BLOCK);
        const block = document.createElement('div');
        block.className = 'block';
        block.style.setProperty('--lines', String(part.length));
        const gutter = document.createElement('pre');
        gutter.className = 'gutter';
        gutter.setAttribute('aria-hidden', 'true');
        gutter.textContent = part.map((_, i) => first + i + 1).join('\n');
        const body = document.createElement('pre');
        body.className = 'lines';
        body.textContent = part.join('\n');
        block.append(gutter, body);
        code.append(block);
      }
      shown.append(code);
    } else {
      const block = document.createElement('div');
      block.className = 'message';
      block.textContent = text;
      shown.append(block);
    }
  }

  function render(bytes, name, released) {
    const type = baseType(released.content_type);
    const blob = new Blob([bytes], { type });
    const title = document.createElement('h2');
    title.textContent = name ?? 'The shared text';
    title.id = 'content-title';
    shown.append(title);
    if (released.view_only) shown.classList.add('view-only');
    if (isText(type)) {
      showText(new TextDecoder().decode(bytes), name);
    } else if (IMAGE_TYPES.includes(type)) {
      const image = document.createElement('img');
      image.className = 'shared';
      image.alt = name ?? 'the shared image';
      image.src = URL.createObjectURL(blob);
      shown.append(image);
    } else if (released.view_only) {
      const note = document.createElement('p');
      note.textContent = `The sender allowed viewing only, and a browser cannot show this kind of file (${type}).`;
      shown.append(note);
    }
    if (!released.view_only) {
      const download = document.createElement('a');
      download.className = 'button';
      download.id = 'download';
      download.href = URL.createObjectURL(blob);
      download.download = name ?? (isText(type) ? 'shared.txt' : 'shared');
      download.textContent = 'Download';
      shown.append(download);
    }
    shown.hidden = false;
    const after = released.destroyed
      ? 'Opened. That was the last open: the service has deleted its copy, so keep what you need before you leave this page.'
      : `Opened. It can be opened ${released.opens_left} more time${released.opens_left === 1 ? '' : 's'}.`;
    say(after);
  }

  async function open(event) {
    event.preventDefault();
    const raw = keyBytes();
    if (!raw)
      return say(
        'This link is incomplete: the part after # is missing or cut short. Copy the whole link.',
        true,
      );
    button.disabled = true;
    say('Opening…');
    let response;
    try {
      response = await fetch(`/s/${data.link_id}/open`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ nonce: data.open_nonce, ...(codeInput ? { code: codeInput.value } : {}) }),
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch {
      button.disabled = false;
      return say('The service did not answer. Check your connection and press Open again.', true);
    }
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      say(body.message ?? `The service refused (${response.status}).`, true);
      const retry = ['wrong_code', 'code_required', 'rate_limited'].includes(body.error);
      button.disabled = !retry;
      if (retry && codeInput) {
        codeInput.value = '';
        codeInput.focus();
      }
      if (!retry) form.hidden = body.error === 'gone';
      return;
    }
    form.hidden = true;
    try {
      const key = await crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['decrypt']);
      const content = await openPart(key, body.ciphertext_b64, 'svc-link-v1 content');
      const name = body.name_ciphertext_b64
        ? new TextDecoder().decode(await openPart(key, body.name_ciphertext_b64, 'svc-link-v1 name'))
        : null;
      render(content, name, body);
    } catch {
      say(
        'The content did not decrypt with this link’s key: it was altered on the way. Ask the sender again.',
        true,
      );
    }
  }

  async function ready() {
    if (!window.crypto || !crypto.subtle) {
      button.disabled = true;
      return say('This page can only decrypt over HTTPS (or on the computer that serves it).', true);
    }
    const raw = keyBytes();
    if (!raw || (await keyCheck(raw)) !== data.key_check) {
      button.disabled = true;
      return say(
        'This link is incomplete or altered: its key does not match. Copy the whole link, including the part after #.',
        true,
      );
    }
    form.addEventListener('submit', open);
    button.disabled = false;
  }

  void ready();
})();
