/**
 * The portal's Mantine theme. Its colours are also set in styles.css: the portal's CSP allows no inline
 * `<style>`, so Mantine's own injection of CSS variables is off (main.tsx) and the variables it would
 * inject are in the stylesheet.
 */
import { createTheme } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'teal',
  primaryShade: 9,
  defaultRadius: 'md',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
  cursorType: 'pointer',
});
