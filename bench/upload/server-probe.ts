/** Memory and CPU of the server process during one upload, measured from inside it. */
import { readFileSync, writeFileSync } from 'node:fs';
import type { ProbeReport } from './child-protocol.js';

export const SAMPLE_INTERVAL_MS = 20;

/** VmHWM of this process in bytes, or null off Linux. */
function readKernelPeakRss(): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match?.[1] === undefined ? null : Number(match[1]) * 1024;
  } catch {
    return null;
  }
}

/** Resets VmHWM to the current RSS (Linux ≥ 4.0, proc(5) "clear_refs": writing 5). */
function resetKernelPeakRss(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * What this (server) process uses for one upload: memory from a baseline after a full GC
 * (the peak of sampled RSS and the kernel's exact high-water mark), and CPU time.
 */
export class ServerProbe {
  #timer: NodeJS.Timeout | undefined;
  #baseline: NodeJS.MemoryUsage | undefined;
  #cpu: NodeJS.CpuUsage | undefined;
  #kernelReset = false;
  #peakRss = 0;
  #peakArrayBuffers = 0;
  #peakHeapUsed = 0;
  #samples = 0;

  /** Starts measuring; returns the baseline RSS. */
  mark(): number {
    this.stop();
    // The baseline leaves out the garbage of earlier rounds, so the growth includes every
    // byte this upload makes the process hold, collected or not.
    (globalThis as { gc?: () => void }).gc?.();
    this.#baseline = process.memoryUsage();
    this.#cpu = process.cpuUsage();
    this.#kernelReset = resetKernelPeakRss();
    this.#peakRss = this.#baseline.rss;
    this.#peakArrayBuffers = this.#baseline.arrayBuffers;
    this.#peakHeapUsed = this.#baseline.heapUsed;
    this.#samples = 0;
    this.#timer = setInterval(() => {
      this.#sample();
    }, SAMPLE_INTERVAL_MS);
    return this.#baseline.rss;
  }

  read(): ProbeReport {
    const baseline = this.#baseline;
    if (!baseline) throw new Error('read() before mark()');
    this.#sample();
    this.stop();
    const cpu = process.cpuUsage(this.#cpu);
    return {
      cpuMicros: cpu.user + cpu.system,
      baselineRss: baseline.rss,
      sampledPeakRss: this.#peakRss,
      kernelPeakRss: this.#kernelReset ? readKernelPeakRss() : null,
      peakArrayBuffers: this.#peakArrayBuffers,
      baselineArrayBuffers: baseline.arrayBuffers,
      peakHeapUsed: this.#peakHeapUsed,
      baselineHeapUsed: baseline.heapUsed,
      samples: this.#samples,
    };
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #sample(): void {
    const usage = process.memoryUsage();
    this.#samples += 1;
    this.#peakRss = Math.max(this.#peakRss, usage.rss);
    this.#peakArrayBuffers = Math.max(this.#peakArrayBuffers, usage.arrayBuffers);
    this.#peakHeapUsed = Math.max(this.#peakHeapUsed, usage.heapUsed);
  }
}
