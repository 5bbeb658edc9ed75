export { default as Container } from './Container';
