// Added to the starter for Atoll's framework suite: an API route answering JSON per request.
export default defineEventHandler(() => ({
  framework: 'nuxt4',
  greeting: process.env.FW_GREETING ?? null,
}))
