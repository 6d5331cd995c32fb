// Builds the Fastify app in tiers: external plugins → app plugins (errors, auth, audit) → routes.
import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { PipelinePool, poolLimitsOf } from '../queue/pipeline-pool.js';
import { PolicyService } from '../domain/policy/policy.service.js';
import { SecretBox } from '../lib/secret-box.js';
import type { App, AppContext, AppOptions } from './context.js';
import { registerConsole } from './console.js';
import { clientErrorHandler, errorHandler, frameworkErrorHandler } from './error-handler.js';
import { guardInput } from './input-guard.js';
import { markOptionalBodies, openapiRoute } from './openapi.js';
import { loggableRequest } from './request-log.js';
import { boundRequestIntegers } from './safe-integers.js';
import { refuseUnknownParameters } from './unknown-parameters.js';
import { registerAudit } from './plugins/audit.js';
import { enforceDeclaredPermission, registerAuth } from './plugins/auth.js';
import { registerPolicy } from './plugins/policy.js';
import { registerRateLimit } from './plugins/rate-limit.js';
import { registerSecurityHeaders } from './plugins/security-headers.js';
import { routeModules } from './routes/index.js';
import { ErrorResponse, ValidationErrorResponse } from './schemas/common.js';
import { validatorCompiler } from './validation.js';

export const API_VERSION = '2.4.3';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The logger's options with a request serializer that keeps tokens in URLs out of the log. */
function withLoggableRequests(logger: FastifyServerOptions['logger'] | false): FastifyServerOptions['logger'] {
  if (!logger) return false;
  const options = logger === true ? {} : logger;
  return { ...options, serializers: { ...options.serializers, req: loggableRequest as never } };
}

export async function buildApp(options: AppOptions, logger: FastifyServerOptions['logger'] | false = false): Promise<App> {
  // A policy service the caller did not pass in is this app's own: it watches for changes made by
  // other processes while the app runs.
  const ownPolicy = options.policy ? null : new PolicyService(options.db);
  // One thread serves the requests that run the pipeline; more would compete with the workers.
  const ownPipeline = options.pipeline ? null : new PipelinePool(1, poolLimitsOf(options.config));
  const ctx: AppContext = {
    ...options,
    policy: options.policy ?? ownPolicy!,
    pipeline: options.pipeline ?? ownPipeline!,
    secretBox: options.secretBox ?? SecretBox.fromConfig(options.config),
  };
  const app = Fastify({
    logger: withLoggableRequests(logger),
    // JSON bodies stay small; uploads go through multipart with their own limit.
    bodyLimit: 2 * 1024 * 1024,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    trustProxy: false,
    ajv: { customOptions: { strict: false } },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send({ detail: `No operation at ${request.method} ${request.url.split('?')[0]}. See /docs.`, code: 'route_not_found' });
  });

  // An empty body with a JSON content type means "no body" (optional-body actions), not an error.
  // PATCH bodies are JSON merge patches (RFC 7396), so their own media type is read as JSON too.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(['application/json', 'application/merge-patch+json'], { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  // Only JSON and multipart bodies are understood; plain text is an unsupported media type (415).
  app.removeContentTypeParser('text/plain');

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('preValidation', guardInput);
  app.addHook('onRoute', (route) => enforceDeclaredPermission(route as never));
  app.addHook('onRoute', refuseUnknownParameters);
  app.addHook('onRoute', boundRequestIntegers);
  if (ownPolicy) app.addHook('onClose', async () => ownPolicy.stop());
  if (ownPipeline) app.addHook('onClose', async () => ownPipeline.stop());

  app.addSchema(ErrorResponse);
  app.addSchema(ValidationErrorResponse);

  await registerSecurityHeaders(app, ctx);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Quire',
        version: API_VERSION,
        description: 'Self-hostable document understanding: canonical documents, entities and template extraction with human review.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A session token (POST /v1/auth/login) or an API key.' } } },
    },
    // Components by their own names (ErrorResponse, HTTPValidationError…), not def-0, def-1.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: openapiRoute,
    transformObject: (documentObject) => markOptionalBodies((documentObject as unknown as { openapiObject: never }).openapiObject),
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  registerAuth(app, ctx);
  registerAudit(app, ctx);
  registerPolicy(app, ctx);
  await registerRateLimit(app, ctx);

  app.get('/openapi.json', { config: { permission: 'public' }, schema: { hide: true } }, async () => app.swagger());
  for (const register of routeModules) register(app, ctx);
  await registerConsole(app);

  await app.ready();
  await ownPolicy?.start();
  return app;
}
