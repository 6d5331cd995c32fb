// What an infrastructure endpoint stores beside its sealed credentials, per type
// (decisions.md "Infra endpoint bodies"). Defaults are filled in when a body is saved.
import type { ModelBackend, ModelPrice } from '../../models/endpoint-config.js';

export const MODEL_TIMEOUT_DEFAULT = 120;
export const MODEL_RETRIES_DEFAULT = 3;
export const OCR_TIMEOUT_DEFAULT = 60;

export interface ModelSettings {
  backend: ModelBackend;
  model: string;
  base_url: string | null;
  aws_region: string | null;
  gcp_project: string | null;
  gcp_region: string | null;
  timeout_seconds: number;
  max_retries: number;
  price_per_mtok: ModelPrice | null;
}

export interface OcrSettings {
  base_url: string;
  timeout_seconds: number;
}

export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  from: string;
}

export interface InfraSettings {
  vlm: ModelSettings;
  judge: ModelSettings;
  ocr: OcrSettings;
  smtp: SmtpSettings;
}
