import type { Clock } from '../services/platform-ports.js';

export const systemClock: Clock = { now: () => new Date() };
