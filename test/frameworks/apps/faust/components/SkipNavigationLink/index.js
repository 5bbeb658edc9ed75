export { default as SkipNavigationLink } from './SkipNavigationLink';
