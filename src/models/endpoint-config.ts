// What a model call needs to know about its endpoint, once resolved for a tenant: the vlm and
// judge infrastructure endpoints and the forge endpoints all become this before any call.
// Credentials here are opened from the secrets box: never log this object or put it in a result.

export const MODEL_BACKENDS = ['anthropic', 'bedrock', 'vertex', 'custom_url'] as const;
export type ModelBackend = (typeof MODEL_BACKENDS)[number];

export interface ModelPrice {
  /** US dollars per million input tokens. */
  input: number;
  /** US dollars per million output tokens. */
  output: number;
}

export interface ModelEndpointConfig {
  backend: ModelBackend;
  model: string;
  base_url: string | null;
  aws_region: string | null;
  gcp_project: string | null;
  gcp_region: string | null;
  /** Opened credentials: api_key | access_key_id + secret_access_key (+ session_token) | service_account_json. */
  credentials: Record<string, string>;
  timeout_seconds: number;
  max_retries: number;
  price_per_mtok: ModelPrice | null;
  /** Names the endpoint in errors and logs, e.g. "tenant vlm endpoint" or "forge endpoint 01J…". */
  label: string;
}
