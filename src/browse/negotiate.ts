// Whether a request is a person at a browser: the same URLs then answer with an HTML page rendered
// from the same JSON body. Programs keep getting JSON exactly as before, including Java's
// HttpURLConnection, whose default Accept header lists text/html first.

interface Range {
  type: string;
  q: number;
}

function ranges(accept: string): Range[] {
  return accept.split(',').map((part) => {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    return { type: range.trim(), q: Number.isFinite(q) ? q : 0 };
  });
}

/** True when the client asked for HTML before JSON (GET and HEAD only). */
export function wantsHtml(method: string, accept: string | undefined, userAgent: string | undefined): boolean {
  if ((method !== 'GET' && method !== 'HEAD') || !accept) return false;
  // Java's default Accept (`text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2`) comes from
  // programs that read JSON; its user agent and its bare `*` range mark it.
  if (userAgent?.startsWith('Java/')) return false;
  const list = ranges(accept);
  if (list.some((r) => r.type === '*')) return false;
  // Browsers navigating list application/xhtml+xml beside text/html; a person with curl asks for
  // text/html alone. Java's default lists images too, and is neither.
  const browser = list.some((r) => r.type === 'application/xhtml+xml' && r.q > 0);
  const htmlOnly = list.every((r) => r.type === 'text/html' || r.type === 'text/*' || r.type === '*/*');
  if (!browser && !htmlOnly) return false;
  const html = Math.max(0, ...list.filter((r) => r.type === 'text/html' || r.type === 'application/xhtml+xml').map((r) => r.q));
  if (html <= 0) return false;
  const json = Math.max(0, ...list.filter((r) => r.type === 'application/json' || r.type.endsWith('+json')).map((r) => r.q));
  return html > json;
}
