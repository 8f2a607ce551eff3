// The model catalog: which providers exist, where their OpenAI-compatible endpoint lives and
// which models a deployment may pick. Loaded once at start-up; a bad file stops start-up.
import { readFileSync } from 'node:fs';

/** USD per million tokens. */
export interface ModelPricing {
  prompt: number;
  completion: number;
}

export interface CatalogProvider {
  id: string;
  name?: string;
  baseUrl: string;
  models: string[];
  /** Catalog prices of the models that have one (a model entry may be `{"id","pricing"}`). */
  pricing: Map<string, ModelPricing>;
  /** The provider reports each reply's cost in `usage.cost` (OpenRouter does). */
  reportsCost: boolean;
  /** What a model can read besides text (`"vision"`), for the models that say so. */
  capabilities: Map<string, string[]>;
  /** The provider's OpenAI-compatible `POST {baseUrl}/audio/transcriptions`, when it has one. */
  transcription?: Transcription;
  /** DESIGN §9.5: the provider's `POST {baseUrl}/audio/speech` (voice replies), when it has one. */
  speech?: Speech;
  /** DESIGN §9.5: the provider's `POST {baseUrl}/images/generations` (generate_image), when it has one. */
  images?: Images;
}

/** DESIGN §9.5: the model and voice answers are spoken with, in USD per million characters. */
export interface Speech {
  model: string;
  voice: string;
  pricePer1MChars: number;
}

/** DESIGN §9.5: the model pictures are drawn with, in USD per image. */
export interface Images {
  model: string;
  pricePerImage: number;
}

/** DESIGN §7.3: the model the provider transcribes with and its price in USD per minute of audio. */
export interface Transcription {
  model: string;
  pricePerMinute: number;
}

/** Capabilities a catalog model entry may name; anything else is a typo that would hide a feature. */
export const MODEL_CAPABILITIES = ['vision'] as const;

/** The capabilities the catalog gives a model (none when it names none). */
export function capabilitiesOf(provider: CatalogProvider | undefined, model: string): string[] {
  return provider?.capabilities.get(model) ?? [];
}

export interface ModelCatalog {
  source: string;
  providers: CatalogProvider[];
  provider(id: string): CatalogProvider | undefined;
}

export function parseCatalog(json: unknown, source: string): ModelCatalog {
  const providers = (json as { providers?: unknown })?.providers;
  if (!Array.isArray(providers) || providers.length === 0) {
    throw new Error(`${source}: expected {"providers":[{"id","baseUrl","models":[...]}]}`);
  }
  const byId = new Map<string, CatalogProvider>();
  for (const [i, p] of providers.entries()) {
    const where = `${source}: providers[${i}]`;
    if (!p || typeof p.id !== 'string' || !p.id) throw new Error(`${where}.id must be a non-empty string`);
    if (typeof p.baseUrl !== 'string' || !/^https?:\/\//.test(p.baseUrl))
      throw new Error(`${where}.baseUrl must be an http(s) URL`);
    if (!Array.isArray(p.models)) throw new Error(`${where}.models must be an array of model ids`);
    const models: string[] = [];
    const pricing = new Map<string, ModelPricing>();
    const capabilities = new Map<string, string[]>();
    for (const [j, m] of (p.models as unknown[]).entries()) {
      const entry = parseModelEntry(m, `${where}.models[${j}]`);
      models.push(entry.id);
      if (entry.pricing) pricing.set(entry.id, entry.pricing);
      if (entry.capabilities?.length) capabilities.set(entry.id, entry.capabilities);
    }
    if (byId.has(p.id)) throw new Error(`${where}.id "${p.id}" appears twice`);
    byId.set(p.id, {
      id: p.id,
      name: p.name,
      baseUrl: p.baseUrl.replace(/\/+$/, ''),
      models,
      pricing,
      reportsCost: p.reportsCost === true,
      capabilities,
      ...(p.transcription === undefined ? {} : { transcription: parseTranscription(p.transcription, where) }),
      ...(p.speech === undefined ? {} : { speech: parseSpeech(p.speech, where) }),
      ...(p.images === undefined ? {} : { images: parseImages(p.images, where) }),
    });
  }
  return { source, providers: [...byId.values()], provider: (id) => byId.get(id) };
}

function parseTranscription(t: unknown, where: string): Transcription {
  const o = t as { model?: unknown; pricePerMinute?: unknown } | null;
  if (
    !o ||
    typeof o !== 'object' ||
    typeof o.model !== 'string' ||
    !o.model ||
    typeof o.pricePerMinute !== 'number' ||
    !Number.isFinite(o.pricePerMinute) ||
    o.pricePerMinute < 0
  ) {
    throw new Error(`${where}.transcription must be {"model","pricePerMinute"}: a model id and USD per minute >= 0`);
  }
  return { model: o.model, pricePerMinute: o.pricePerMinute };
}

const isId = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 200;
const isPrice = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

function parseSpeech(t: unknown, where: string): Speech {
  const o = t as { model?: unknown; voice?: unknown; pricePer1MChars?: unknown } | null;
  if (!o || typeof o !== 'object' || !isId(o.model) || !isId(o.voice) || !isPrice(o.pricePer1MChars)) {
    throw new Error(
      `${where}.speech must be {"model","voice","pricePer1MChars"}: a model id, a voice name and USD per million characters >= 0`,
    );
  }
  return { model: o.model, voice: o.voice, pricePer1MChars: o.pricePer1MChars };
}

function parseImages(t: unknown, where: string): Images {
  const o = t as { model?: unknown; pricePerImage?: unknown } | null;
  if (!o || typeof o !== 'object' || !isId(o.model) || !isPrice(o.pricePerImage)) {
    throw new Error(`${where}.images must be {"model","pricePerImage"}: a model id and USD per image >= 0`);
  }
  return { model: o.model, pricePerImage: o.pricePerImage };
}

function parseCapabilities(c: unknown, where: string): string[] | undefined {
  if (c === undefined) return undefined;
  const known: readonly string[] = MODEL_CAPABILITIES;
  if (!Array.isArray(c) || !c.every((x) => typeof x === 'string' && known.includes(x))) {
    throw new Error(`${where}.capabilities must be an array of ${MODEL_CAPABILITIES.map((x) => `"${x}"`).join(', ')}`);
  }
  return [...new Set(c as string[])];
}

function parseModelEntry(m: unknown, where: string): { id: string; pricing?: ModelPricing; capabilities?: string[] } {
  if (typeof m === 'string' && m) return { id: m };
  const o = m as { id?: unknown; pricing?: { prompt?: unknown; completion?: unknown }; capabilities?: unknown } | null;
  if (!o || typeof o !== 'object' || typeof o.id !== 'string' || !o.id) {
    throw new Error(`${where} must be a model id or {"id","pricing":{"prompt","completion"},"capabilities":[...]}`);
  }
  const capabilities = parseCapabilities(o.capabilities, where);
  if (o.pricing === undefined) return { id: o.id, capabilities };
  const price = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  if (!o.pricing || !price(o.pricing.prompt) || !price(o.pricing.completion)) {
    throw new Error(`${where}.pricing must be {"prompt","completion"}: USD per million tokens, numbers >= 0`);
  }
  return {
    id: o.id,
    pricing: { prompt: o.pricing.prompt as number, completion: o.pricing.completion as number },
    capabilities,
  };
}

/**
 * Managed deployments are metered at catalog prices; a model without one is accepted only when its
 * provider reports each reply's cost. Throws the start-up error naming the models.
 */
export function checkManagedPricing(catalog: ModelCatalog, managedProvider: string): void {
  const p = catalog.provider(managedProvider);
  if (!p || p.reportsCost) return;
  const unpriced = p.models.filter((m) => !p.pricing.has(m));
  if (unpriced.length) {
    throw new Error(
      `MODEL_CATALOG: the managed provider "${p.id}" has models without "pricing" (${unpriced.join(', ')}), and it does not report costs ("reportsCost": true); managed usage could not be metered. Give each model {"id","pricing":{"prompt","completion"}} in USD per million tokens.`,
    );
  }
}

export function loadCatalog(path: string): ModelCatalog {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`MODEL_CATALOG: cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    return parseCatalog(JSON.parse(text), path);
  } catch (err) {
    throw new Error(`MODEL_CATALOG: ${(err as Error).message}`);
  }
}
