/** What model calls cost, per backend and model: on a job's engine report and in the tenant's monthly usage. */
export interface ModelUsage {
  backend: string;
  model: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}
