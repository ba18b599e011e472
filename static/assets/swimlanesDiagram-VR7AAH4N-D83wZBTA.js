import{r as e,t}from"./chunk-SHT3W25Y-DcKyqGTv.js";import"./chunk-POPQ4Y6H-Ji9MsDFx.js";import"./mermaid.core-BPqWxgu9.js";import"./chunk-F27PBJKO-B2ndVJQw.js";import"./chunk-L3NEJ4N5-CviYmHH7.js";import"./chunk-OSK3NFVY-Dgz6Qp7U.js";import"./chunk-GVQU2GXP-DuOLCBvP.js";import"./chunk-4HAMMTFA-DIbH7WHd.js";import"./chunk-P2QGCYS3-DqjU4JMc.js";import"./chunk-GMAD6QVW-WMHKyq94.js";import"./chunk-PWAF6VOD-Ctdnzvzi.js";import"./chunk-75Z2AOVW-B6Mn_62E.js";import"./chunk-DU6HZSFF-zE3xpOUy.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};