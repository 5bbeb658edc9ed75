// Added to the starter for Atoll's framework suite: a page rendered per request that shows a shell variable.
import type { GetServerSideProps } from "next";

type Props = { greeting: string };

export const getServerSideProps: GetServerSideProps<Props> = async () => ({
  props: { greeting: process.env.FW_GREETING ?? "(unset)" },
});

export default function EnvPage({ greeting }: Props) {
  return (
    <main>
      <h1>Shell variable</h1>
      <p id="greeting">FW_GREETING={greeting}</p>
    </main>
  );
}
