// Time as the user lives it (DESIGN §9.4, issue 62): each end user's own time zone (/timezone, or
// set_timezone when the model asked), the owner's default for the others, the local date and time
// in every model call, reminders set and listed in the user's zone. Against FakeTelegram and the
// fake model provider.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultSettings } from '@berth/contracts/settings';
import { clockBlock } from '../src/core/clock.js';
import { fakeTelegramBed, waitUntil } from './helpers/bed.js';
import { withServe } from './helpers/serve.js';
import { userData } from '../src/storage/user-data.js';

const TOKEN = '7000000062:AAtimeZonesFakeTokenForAgentTests_ab';
const { tg, provider } = fakeTelegramBed(TOKEN);
const hans = { id: 6201, first_name: 'Hans', language_code: 'de' };

const systemOf = (i = -1) =>
  (provider.requests.at(i)!.body.messages as Array<{ role: string; content: string }>)
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n');

test('the clock block: local time in the zone, and what to do when it is unknown', () => {
  const at = new Date(Date.UTC(2026, 11, 6, 8, 30));
  assert.match(
    clockBlock(at, 'Europe/Berlin', 'user'),
    /Sunday, 6 December 2026.*09:30.*in Europe\/Berlin \(the user's time zone\)/,
  );
  assert.match(clockBlock(at, 'America/New_York', 'owner'), /03:30.*default time zone/);
  assert.match(
    clockBlock(at, undefined, 'none', true),
    /08:30.*UTC.*ask where they are, then save it with set_timezone/,
  );
});

test('a German user sets /timezone, and "at 9" means 9 in Berlin: stored, listed and told to the model in local time', () =>
  withServe({ provider, telegram: tg, botToken: TOKEN }, async (s) => {
    await waitUntil(() => s.agent.health().ready, 'the bot connects');
    tg.userSends(TOKEN, hans.id, { text: '/timezone', from: hans });
    assert.match((await tg.waitForSent((m) => m.chat_id === hans.id)).text, /^Ich kenne deine Zeitzone noch nicht/);
    tg.userSends(TOKEN, hans.id, { text: '/timezone Mars/Olympus', from: hans });
    await waitUntil(() => tg.sentTo(hans.id).length === 2, 'the refusal');
    assert.match(tg.sentTo(hans.id)[1]!.text, /„Mars\/Olympus“ ist keine Zeitzone/);
    tg.userSends(TOKEN, hans.id, { text: '/timezone europe/berlin', from: hans });
    await waitUntil(() => tg.sentTo(hans.id).length === 3, 'the zone set');
    assert.match(tg.sentTo(hans.id)[2]!.text, /^Deine Zeitzone ist jetzt Europe\/Berlin; dort ist es \d\d:\d\d\./);

    // A local time without a zone, as the model writes "9 tomorrow": in the user's zone.
    const year = new Date().getUTCFullYear() + 1;
    provider.queue.push({
      toolCalls: [{ name: 'schedule_message', arguments: { text: 'Zahnarzt', at: `${year}-01-15T09:00:00` } }],
    });
    provider.queue.push({ content: 'Mache ich.' });
    tg.userSends(TOKEN, hans.id, { text: 'Erinnere mich am 15. Januar um 9 an den Zahnarzt', from: hans });
    await tg.waitForSent((m) => m.chat_id === hans.id && m.text === 'Mache ich.');
    assert.match(systemOf(-2), /in Europe\/Berlin \(the user's time zone\)/);
    const [stored] = userData(s.store).schedules.listAll('test-agent');
    assert.equal(stored?.nextAt, Date.UTC(year, 0, 15, 8, 0), '09:00 in Berlin in winter is 08:00 UTC');

    tg.userSends(TOKEN, hans.id, { text: '/reminders', from: hans });
    const listed = await tg.waitForSent((m) => m.chat_id === hans.id && m.text.startsWith('Deine geplanten'));
    assert.match(listed.text, /Zahnarzt\n {2}15\.01\.\d{4}, 09:00 \(Europe\/Berlin\) — \/cancel_[0-9a-f]{8}/);
  }));

test('the model asks where the user is and saves it; the owner default holds for users who gave none', () =>
  withServe(
    {
      provider,
      telegram: tg,
      botToken: TOKEN,
      config: { settings: { ...defaultSettings(), timezone: 'America/New_York' } },
    },
    async (s) => {
      await waitUntil(() => s.agent.health().ready, 'the bot connects');
      provider.queue.push({ content: 'Where are you?' });
      tg.userSends(TOKEN, 6202, { text: 'what time is it?' });
      await tg.waitForSent((m) => m.chat_id === 6202 && m.text === 'Where are you?');
      assert.match(systemOf(), /in America\/New_York \(the assistant's default time zone/);
      const offered = (provider.requests.at(-1)!.body.tools as Array<{ function: { name: string } }>).map(
        (t) => t.function.name,
      );
      assert.ok(offered.includes('set_timezone'), offered.join());

      provider.queue.push({ toolCalls: [{ name: 'set_timezone', arguments: { timezone: 'asia/tokyo' } }] });
      provider.queue.push({ content: 'Saved.' });
      tg.userSends(TOKEN, 6202, { text: 'I am in Tokyo' });
      await tg.waitForSent((m) => m.chat_id === 6202 && m.text === 'Saved.');
      assert.match(JSON.stringify(provider.requests.at(-1)!.body.messages), /"timezone\\":\\"Asia\/Tokyo\\"/);
      provider.queue.push({ content: 'ok' });
      tg.userSends(TOKEN, 6202, { text: 'and now?' });
      await tg.waitForSent((m) => m.chat_id === 6202 && m.text === 'ok');
      assert.match(systemOf(), /in Asia\/Tokyo \(the user's time zone\)/);
      // Another user of the same bot still has the owner's default.
      provider.queue.push({ content: 'hi' });
      tg.userSends(TOKEN, 6203, { text: 'hello' });
      await tg.waitForSent((m) => m.chat_id === 6203 && m.text === 'hi');
      assert.match(systemOf(), /in America\/New_York/);
    },
  ));
