/**
 * The platform's one logger (pino), with the redaction that keeps secrets out of every log line.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from '../config/load-config.js';

/**
 * The platform's JSON logger: one place for its redaction, so that no credential or secret
 * that reaches a log call is written (benchmarks build the same logger, to measure its cost).
 */
export function createPlatformLogger(level: Config['logLevel'], destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: [
      'req.headers.authorization',
      '*.password',
      '*.secretKey',
      '*.secretAccessKey',
      '*.sessionToken',
      '*.credentials.secretAccessKey',
      '*.credentials.sessionToken',
    ],
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}
