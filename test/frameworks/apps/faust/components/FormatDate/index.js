export { default as FormatDate } from './FormatDate';
