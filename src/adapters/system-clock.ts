import type { Clock } from '../services/kit/platform-ports.js';

export const systemClock: Clock = { now: () => new Date() };
