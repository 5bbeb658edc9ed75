/** Each page's tab title, most specific first, so a row of browser tabs tells the pages apart. */
import { useDocumentTitle } from '@mantine/hooks';

/** Sets the document title to `parts · Atoll` (parts empty or undefined are left out). */
export function usePageTitle(...parts: (string | undefined)[]): void {
  useDocumentTitle([...parts.filter((p) => p !== undefined && p !== ''), 'Atoll'].join(' · '));
}
