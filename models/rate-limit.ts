/**
 * Per-endpoint request limits: a concurrency limiter (p-limit) plus a requests-per-minute token
 * bucket. Retries go through the limiter again, so backoff sleeps never hold a slot.
 */
import pLimit from "p-limit";

/** Limits of one endpoint. */
export interface RateLimitConfig {
  /** Requests in flight at once (≥ 1). */
  concurrency: number;
  /** Request starts per minute; 0 = unlimited. Bucket capacity = max(1, min(rpm, concurrency)). */
  requestsPerMinute: number;
}

/**
 * Token bucket refilled continuously at `ratePerMinute / 60000` tokens per ms.
 * `take()` resolves when a token is available (FIFO).
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private queue: Promise<void> = Promise.resolve();
  constructor(
    readonly ratePerMinute: number,
    readonly capacity: number = 1,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = capacity;
    this.last = now();
  }
  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((t - this.last) * this.ratePerMinute) / 60_000);
    this.last = t;
  }
  /** Wait for and consume one token. */
  take(): Promise<void> {
    const next = this.queue.then(async () => {
      for (;;) {
        this.refill();
        if (this.tokens >= 1) {
          this.tokens -= 1;
          return;
        }
        const waitMs = Math.ceil(((1 - this.tokens) * 60_000) / this.ratePerMinute);
        await new Promise((r) => setTimeout(r, waitMs));
      }
    });
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/** Runs functions under an endpoint's concurrency and RPM limits. */
export interface RateLimiter {
  readonly config: RateLimitConfig;
  /** Run `fn` once a slot and a token are free. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Requests currently running. */
  readonly active: number;
}

/**
 * Build a limiter.
 * @throws Error when concurrency < 1 or requestsPerMinute < 0.
 */
export function createRateLimiter(config: RateLimitConfig): RateLimiter {
  if (!(config.concurrency >= 1)) throw new Error(`rate limit: concurrency must be ≥ 1 (got ${config.concurrency})`);
  if (!(config.requestsPerMinute >= 0)) throw new Error(`rate limit: requestsPerMinute must be ≥ 0 (got ${config.requestsPerMinute})`);
  const limit = pLimit(config.concurrency);
  const bucket = config.requestsPerMinute > 0 ? new TokenBucket(config.requestsPerMinute, Math.max(1, Math.min(Math.floor(config.requestsPerMinute), config.concurrency))) : null;
  return {
    config,
    get active() {
      return limit.activeCount;
    },
    run: (fn) =>
      limit(async () => {
        if (bucket) await bucket.take();
        return fn();
      }),
  };
}

const shared = new Map<string, RateLimiter>();

/**
 * The limiter shared by every client of one endpoint (same base URL and limits) in this process,
 * so chat models, judges and embedders on one server share its budget.
 */
export function endpointLimiter(baseURL: string, config: RateLimitConfig): RateLimiter {
  const key = `${baseURL}|${config.concurrency}|${config.requestsPerMinute}`;
  let l = shared.get(key);
  if (!l) {
    l = createRateLimiter(config);
    shared.set(key, l);
  }
  return l;
}
