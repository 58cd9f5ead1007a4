// Type declarations for the parts of autocannon's programmatic API the benchmarks use
// (autocannon ships no types, and @types/autocannon is not a dependency).
declare module 'autocannon' {
  export interface Options {
    url: string;
    method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    headers?: Record<string, string>;
    body?: string | Buffer;
    connections?: number;
    pipelining?: number;
    /** Seconds. */
    duration?: number;
    /** Seconds before a request counts as a timeout. */
    timeout?: number;
    warmup?: { connections?: number; duration?: number };
  }

  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }

  export interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    /** Requests per second, sampled once a second. */
    requests: Histogram & { sent: number };
    /** Milliseconds. */
    latency: Histogram;
    throughput: Histogram;
    warmup?: Result;
  }

  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
