// The shape of schema/catalog.json as codegen reads it, after the meta-schema has accepted it.

export type NextStepName = 'fix_request' | 'wait' | 'give_up';
export type Requirement = 'field' | 'retry_after';

export interface RetryWordEntry {
  next_step: NextStepName;
  requires: Requirement[];
  default_retry_after?: number;
  idempotent_only?: boolean;
  advice: string;
  advice_without_delay?: string;
}

export interface CodeExample {
  message: string;
  detail: string;
  field?: string;
  retry_after?: number;
}

export interface CodeEntry {
  status: number;
  retry: string;
  title: string;
  advice: string;
  family: 'core' | 'identity' | 'payment' | 'negotiation' | 'site';
  draft?: boolean;
  google: string;
  stripe: string;
  example: CodeExample;
}

export interface Catalog {
  example_base: string;
  retry_words: Record<string, RetryWordEntry>;
  codes: Record<string, CodeEntry>;
  status_defaults: Record<string, string>;
  status_fallbacks: { '4xx': string; '5xx': string };
  unknown_code: string;
  readers: Record<'signals' | 'next_step' | 'google_status' | 'stripe_type' | 'stripe_code' | 'github_error_code' | 'openai_code' | 'bearer_error' | 'aws_throttling' | 'aws_common' | 'aws_s3' | 'aws_dynamodb' | 'graphql_apollo' | 'graphql_github' | 'graphql_shopify' | 'graphql_user_error_code' | 'jsonrpc_code' | 'slack_error' | 'slack_error_part' | 'google_reason' | 'google_precondition_phrase' | 'kubernetes_reason' | 'azure_code' | 'salesforce_code' | 'hubspot_category' | 'notion_code' | 'elasticsearch_type' | 'anthropic_type' | 'cloudflare_retryable' | 'cloudflare_category' | 'x402_error' | 'crawler_error' | 'crawler_error_header' | 'validation_keyword' | 'validation_phrase' | 'upstream_caller_field' | 'upstream_caller_payment' | 'upstream_site' | 'problem_type' | 'a2a_reason' | 'a2a_jsonrpc_code', Record<string, string>>;
}

/** One reason a catalog was refused: the JSON pointer into the catalog and what is wrong there. */
export interface CatalogProblem {
  pointer: string;
  reason: string;
}

/** A catalog that codegen refuses, with every problem found in it. */
export class CatalogError extends Error {
  override name = 'CatalogError';
  constructor(
    readonly file: string,
    readonly problems: CatalogProblem[],
  ) {
    super(`${file} is not a valid catalog:\n${problems.map((p) => `  ${file}#${p.pointer}: ${p.reason}`).join('\n')}`);
  }
}
