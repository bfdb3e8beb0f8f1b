/** Just enough XML reading for TwiML and Plivo XML: elements by name, their attributes and text. */
const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

export interface XmlElement { attrs: Record<string, string>; text: string }

export function elements(xml: string, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const re = new RegExp(`<${name}(\\s[^>]*?)?(/>|>([\\s\\S]*?)</${name}>)`, 'g');
  for (const m of xml.matchAll(re)) {
    const attrs: Record<string, string> = {};
    for (const a of (m[1] ?? '').matchAll(/([\w:-]+)\s*=\s*("([^"]*)"|'([^']*)')/g)) attrs[a[1]] = unescape(a[3] ?? a[4] ?? '');
    out.push({ attrs, text: unescape((m[3] ?? '').replace(/<[^>]*>/g, '').trim()) });
  }
  return out;
}
