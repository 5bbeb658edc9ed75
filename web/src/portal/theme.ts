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
  components: {
    // Locking the page's scroll injects a <style> (react-remove-scroll), which the CSP refuses.
    Modal: { defaultProps: { lockScroll: false } },
    // Its close button is an icon: it needs a name for screen readers.
    Notification: { defaultProps: { closeButtonProps: { 'aria-label': 'Close notification' } } },
  },
});
