/**
 * Heavy libraries that serve one optional feature (the AWS SDK for S3 blobs, acme-client for certificates,
 * nodemailer for report mail, pdfkit for report PDFs) are imported on first use, not at start: together
 * they took about a second and 60 MiB of every `atoll serve` that never used them (docs/architecture.md
 * "Conventions", docs/benchmarks.md "Footprint").
 */

/**
 * `load` run at the first call and its promise shared by every later one; a failed load is tried again at
 * the next call rather than remembered.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
