// The compiled check of AssistantSettings, shared by the control plane (PUT .../settings) and the
// agent (what arrives in its mount): one schema, one verdict on both sides.
import { Compile } from 'typebox/compile';
import { AssistantSettings } from './schema.js';

const compile = () => Compile(AssistantSettings);
let compiled: ReturnType<typeof compile> | undefined;

/** The settings when valid, else the first few problems as "/access/mode must be ...". */
export function checkSettings(
  value: unknown,
): { ok: true; settings: AssistantSettings } | { ok: false; message: string } {
  compiled ??= compile();
  const check = compiled;
  if (check.Check(value)) return { ok: true, settings: value };
  const message = [...check.Errors(value)]
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message}`)
    .join('; ');
  return { ok: false, message };
}
