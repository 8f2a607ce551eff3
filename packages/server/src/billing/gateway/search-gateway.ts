// The search gateway (DESIGN §7.4): agents call it with their deployment's gateway credential;
// the operator's provider and key stay here. Each answered query is booked in the usage ledger at
// SEARCH_PRICE_USD (held first like a model call, so a spent allowance refuses before searching);
// a failed or slow query books nothing and answers with a sentence within the deadline.
import { bearerToken } from '@berth/contracts/bearer';
import { AppError } from '../../platform/errors/app-error.js';
import type { Services } from '../../services.js';
import { openPeriod, reserve, settle } from '../allowance.js';
import { nanoToUsd, usdToNano } from '../pricing.js';
import type { UsageEntry } from '../../platform/store/usage.js';
import { type SearchProvider, type SearchResult, SearchUnavailable } from './search/port.js';

export type SearchGatewayDeps = Pick<
  Services,
  'jobs' | 'callbackSequences' | 'deployments' | 'usage' | 'billing' | 'now' | 'log' | 'events'
>;

export const SEARCH_DEADLINE_MS = 8000;

const unauthorized = () =>
  new AppError('UNAUTHORIZED', 'Send this deployment\'s gateway credential as "Authorization: Bearer <credential>".');

export class SearchGateway {
  constructor(
    private readonly s: SearchGatewayDeps,
    private readonly provider: SearchProvider | undefined,
    private readonly priceUsd: number,
    private readonly deadlineMs = SEARCH_DEADLINE_MS,
  ) {}

  get enabled() {
    return this.provider !== undefined;
  }

  async search(authorization: string | undefined, query: string): Promise<{ results: SearchResult[] }> {
    const bearer = bearerToken(authorization);
    const claim = this.s.billing.credentials.verify(bearer);
    if (!claim) throw unauthorized();
    const d = await this.s.deployments.findById(claim.deploymentId);
    // A credential dies with its generation (a stop or redeploy moves it on): decision 0029.
    if (!d || d.generation !== claim.generation) throw unauthorized();
    if (d.status !== 'active' && d.status !== 'deploying')
      throw new AppError(
        'INVALID_STATE',
        `The deployment is ${d.status}; its gateway credential works only while it runs.`,
      );
    const provider = this.provider;
    if (!provider) throw new AppError('BAD_GATEWAY', 'The operator has not configured web search (SEARCH_PROVIDER).');
    const price = usdToNano(this.priceUsd);
    if (d.apiMode === 'byok') await this.assertByokSearchAllowance(d, price);
    const reservation = await reserve(this.s, d, price);
    let entry: UsageEntry | undefined;
    try {
      const results = await provider.search(query, AbortSignal.timeout(this.deadlineMs));
      entry = {
        source: 'search',
        model: `search:${provider.name}`,
        promptTokens: 0,
        completionTokens: 0,
        costNano: price,
      };
      return { results };
    } catch (err) {
      if (!(err instanceof SearchUnavailable)) throw err;
      this.s.log.warn({ deploymentId: d.id, provider: provider.name, err: err.message }, 'web search failed');
      throw new AppError('BAD_GATEWAY', `Web search is unavailable: ${err.message}.`);
    } finally {
      await settle(this.s, reservation, entry);
    }
  }

  /**
   * A byok owner pays their model calls with their own key, but the searches with the operator's
   * (issue 57 R6: 30 searches in one reply, never limited on byok). They get what a managed
   * deployment's monthly credit (MANAGED_MONTHLY_CREDITS_USD) buys in searches a period; the owner's
   * own cap, when set, holds them too (reserve). Searches running at the same moment (or on
   * another replica) may pass it by their number, no more.
   */
  private async assertByokSearchAllowance(d: Parameters<typeof reserve>[1], price: number) {
    if (price === 0) return;
    const limit = usdToNano(this.s.billing.monthlyCreditsUsd.managed);
    const key = await openPeriod(this.s, d);
    // This replica's settled searches first, or a reply's searches one after another would each
    // read the ledger before the last one was written.
    await this.s.billing.settles.before(key, true);
    const spent = await this.s.usage.searchSpentNano(key);
    if (spent + price > limit)
      throw new AppError(
        'CREDITS_EXHAUSTED',
        `This assistant has used this period's web searches ($${nanoToUsd(limit)} of searches on the operator's account, a byok deployment's share); answer without searching.`,
      );
  }
}
