// The check every catalogue of Berth's own sentences passes (Telegram's, WhatsApp's): each
// language has every key of the English one, filled, with the same {placeholders}, and none is
// left in English.
import assert from 'node:assert/strict';

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

export function assertCatalogue(en: object, languages: Record<string, object>) {
  const english = en as Record<string, string>;
  for (const [lang, texts] of Object.entries(languages)) {
    const t = texts as Record<string, string>;
    assert.deepEqual(Object.keys(t).sort(), Object.keys(english).sort(), `${lang}: keys`);
    for (const [key, sentence] of Object.entries(english)) {
      assert.ok(t[key]!.trim(), `${lang}.${key} is empty`);
      assert.deepEqual(placeholders(t[key]!), placeholders(sentence), `${lang}.${key}: placeholders`);
      // A translation that is the English sentence is a key someone forgot (the locale aside).
      if (lang !== 'en' && key !== 'locale') assert.notEqual(t[key], sentence, `${lang}.${key} is not translated`);
    }
  }
}
