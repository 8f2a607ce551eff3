// Every sentence of Berth's own in every language (DESIGN §9.4, issue 62): the catalogue is checked
// key for key against English, and a Spanish user gets every command of the menu answered in
// Spanish; /help lists every command the menu shows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { en, LANGUAGES, menu, textsFor } from '../src/channels/telegram/texts/index.js';
import { fakeTelegramBed, waitUntil } from './helpers/bed.js';
import { withServe } from './helpers/serve.js';
import { assertCatalogue } from './helpers/catalogue.js';

test('every language has every key of the English catalogue, filled, with the same placeholders', () => {
  assertCatalogue(en, Object.fromEntries(LANGUAGES.map((l) => [l, textsFor(undefined, l)])));
});

const TOKEN = '7000000063:AAcatalogueFakeTokenForAgentTests_ab';
const { tg, provider } = fakeTelegramBed(TOKEN);

test('a Spanish user: every command of the menu answers in Spanish, and /help lists them all', () =>
  withServe({ provider, telegram: tg, botToken: TOKEN }, async (s) => {
    const es = textsFor(undefined, 'es');
    const maria = { id: 6301, first_name: 'María', language_code: 'es' };
    await waitUntil(() => s.agent.health().ready, 'the bot connects');
    const commands = menu(es, { memory: true, reminders: true }).map((c) => c.command);
    assert.deepEqual(commands, ['start', 'help', 'reset', 'memory', 'forget', 'reminders', 'timezone']);
    const answers: Record<string, string> = {};
    for (const command of commands) {
      const before = tg.sentTo(maria.id).length;
      tg.userSends(TOKEN, maria.id, { text: `/${command}`, from: maria });
      await waitUntil(() => tg.sentTo(maria.id).length > before, `/${command} answered`);
      answers[command] = tg.sentTo(maria.id).at(-1)!.text;
    }
    assert.equal(answers.start, es.welcome);
    assert.equal(answers.reset, es.reset);
    assert.equal(answers.memory, es.memoryEmpty);
    assert.equal(answers.forget, es.nothingToForget);
    assert.equal(answers.reminders, es.remindersEmpty);
    assert.equal(answers.timezone, es.timezoneUnknown);
    assert.ok(answers.help!.startsWith(es.help), answers.help);
    for (const c of menu(es, { memory: true, reminders: true }))
      assert.ok(answers.help!.includes(`/${c.command} — ${c.description}`), `/help lists /${c.command}`);
    assert.equal(provider.requests.length, 0, 'no command costs a model call');
  }));
