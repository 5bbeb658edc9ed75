// Added to the starter for Atoll's framework suite: an API route answering JSON per request.
import { connection } from "next/server";

export async function GET() {
  await connection();
  return Response.json({ framework: "next16-app", greeting: process.env.FW_GREETING ?? null });
}
