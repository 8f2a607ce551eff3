// Berth's own sentences on WhatsApp in the user's language (decision 0033-whatsapp-language): the
// catalogue checked key for key against English; the language of a sender's country calling code
// when the owner left settings.language on "auto", the owner's language when set; a +49 number's
// refusals arrive in German on a real agent host, without a model call.
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import type { WhatsAppNumber } from '@berth/testkit';
import { defaultSettings } from '@berth/contracts/settings';
import { en, LANGUAGES, textsFor } from '../src/channels/whatsapp/texts/index.js';
import { de } from '../src/channels/whatsapp/texts/de.js';
import { fr } from '../src/channels/whatsapp/texts/fr.js';
import { languageOfNumber } from '../src/channels/whatsapp/number-language.js';
import { channelChat, channelUser } from '../src/core/inbound.js';
import { userData } from '../src/storage/user-data.js';
import { whatsappHostBed } from './helpers/whatsapp-host.js';
import { assertCatalogue } from './helpers/catalogue.js';

test('every language has every key of the English catalogue, filled, with the same placeholders', () => {
  assert.deepEqual(LANGUAGES, ['en', 'de', 'es', 'fr', 'pt', 'ru']);
  assertCatalogue(en, Object.fromEntries(LANGUAGES.map((l) => [l, textsFor(l, undefined)])));
});

test("a sender's language: the owner's setting, else their number's country, else English", () => {
  const cases: Array<[string, string | undefined]> = [
    ['4915112345678', 'de'], // Germany
    ['436641234567', 'de'], // Austria
    ['34612345678', 'es'],
    ['5215512345678', 'es'], // Mexico
    ['33612345678', 'fr'],
    ['351912345678', 'pt'],
    ['5511987654321', 'pt'], // Brazil
    ['79161234567', 'ru'],
    ['77011234567', 'ru'], // Kazakhstan shares +7
    ['16505551234', undefined], // the United States
    ['14165551234', undefined], // Canada shares +1: not told apart by the code alone
    ['819012345678', undefined], // Japan: no translation
    ['not-a-number', undefined],
    ['', undefined],
  ];
  for (const [waId, lang] of cases) assert.equal(languageOfNumber(waId), lang, waId);
  assert.equal(textsFor('auto', '4915112345678'), de);
  assert.equal(textsFor(undefined, '4915112345678'), de);
  assert.equal(textsFor('auto', '819012345678'), en);
  assert.equal(textsFor('fr', '4915112345678'), fr, "the owner's language wins");
  assert.equal(textsFor('fr-CA', '4915112345678'), fr);
  assert.equal(textsFor('ja', '4915112345678'), en, 'a language without a translation is English, not the number');
});

const ADMIN = 'admin-token-for-whatsapp-catalogue-0123456789';
const { wa, bed, call, numberedAgent, deliver, textTo } = whatsappHostBed(ADMIN, 'berth-wa-catalogue-');
const hans = { waId: '4915112345678', name: 'Hans' };
const stranger = { waId: '4917612345678', name: 'Greta' };

describe('a German number on a real agent host', () => {
  let n: WhatsAppNumber;
  const base = defaultSettings();
  const settings = {
    ...base,
    access: { ...base.access, mode: 'allowlist' as const, whatsappNumbers: [hans.waId], perUserDailyReplies: 1 },
  };
  before(async () => {
    n = await numberedAgent('wa-de', { settings });
  });

  test('not allowed, an unreadable file and the daily limit are said in German, without a model call', async () => {
    const calls = bed.provider.requests.length;
    await deliver('wa-de', n, stranger, { text: 'Hallo?' });
    assert.equal((await textTo(stranger.waId)).body.text.body, de.notAllowed);
    await deliver('wa-de', n, hans, {
      document: { bytes: Buffer.from('PK\u0003\u0004'), mimeType: 'application/zip', filename: 'fotos.zip' },
    });
    assert.equal((await textTo(hans.waId)).body.text.body, de.unsupportedDocument);
    // The zip was Hans's one reply of the day: the next message is over the cap.
    await deliver('wa-de', n, hans, { text: 'Noch eine Frage' });
    await textTo(hans.waId, (b) => b === de.dailyLimit);
    assert.equal(bed.provider.requests.length, calls, 'no refusal costs a model call');
  });

  test("the owner's settings.language overrides the number's: the same German number is refused in French", async () => {
    const put = await call('PUT', '/agents/wa-de/settings', { ...settings, language: 'fr' });
    assert.equal(put.status, 200, JSON.stringify(put.json));
    const before = wa.sent.filter((m) => m.to === stranger.waId).length;
    await deliver('wa-de', n, stranger, { text: 'Und jetzt?' });
    await textTo(stranger.waId, (b) => b === fr.notAllowed);
    assert.equal(wa.sent.filter((m) => m.to === stranger.waId).length, before + 1);
  });

  test('a scheduled task over the daily cap is refused to the German number in German', async () => {
    const m = await numberedAgent('wa-de-task', {
      settings: {
        ...base,
        tools: { ...base.tools, reminders: true },
        access: { ...base.access, perUserDailyReplies: 1 },
      },
    });
    await deliver('wa-de-task', m, hans, { text: 'Hallo' });
    await textTo(hans.waId, (b) => b === 'You said: Hallo');
    const calls = bed.provider.requests.length;
    userData(bed.store).schedules.add({
      id: '0000de01',
      agent: 'wa-de-task',
      user: channelUser('whatsapp', hans.waId),
      chat: channelChat('whatsapp', hans.waId),
      text: 'Zahnarzt anrufen',
      task: true,
      at: null,
      cron: null,
      timezone: null,
      nextAt: Date.now(),
    });
    bed.host.scheduler.wake();
    await textTo(hans.waId, (b) => b === `⏰ Zahnarzt anrufen\n\n${de.dailyLimit}`);
    assert.equal(bed.provider.requests.length, calls, 'refused before any model call');
  });

  test("a reminder past the 24-hour window is refused in German, its times in Germany's format", async () => {
    const m = await numberedAgent('wa-de-window', { settings: { ...base, tools: { ...base.tools, reminders: true } } });
    const late = Date.now() + 30 * 60 * 60 * 1000;
    bed.provider.queue.push(
      {
        toolCalls: [
          {
            name: 'schedule_message',
            arguments: { text: 'Zahnarzt', at: new Date(late).toISOString().slice(0, 19) + 'Z' },
          },
        ],
      },
      { content: 'Das geht leider nicht.' },
    );
    const asked = bed.provider.requests.length;
    await deliver('wa-de-window', m, hans, { text: 'Erinnere mich in 30 Stunden' });
    await textTo(hans.waId, (b) => b === 'Das geht leider nicht.');
    const toolAnswer = JSON.stringify(bed.provider.requests[asked + 1]!.body.messages.at(-1));
    assert.match(toolAnswer, /WhatsApp erlaubt mir, dir nur innerhalb von 24 Stunden/);
    const german = new Intl.DateTimeFormat('de-DE', { timeZone: 'UTC', dateStyle: 'medium', timeStyle: 'short' });
    const at = Math.floor(late / 1000) * 1000;
    assert.ok(toolAnswer.includes(`am ${german.format(at)} (UTC)`), toolAnswer);
  });
});
