import{r as e,t}from"./chunk-SHT3W25Y-CJXLA8zw.js";import"./chunk-POPQ4Y6H-DUoxpkWB.js";import"./mermaid.core-DxLKffDP.js";import"./chunk-F27PBJKO-DfJPZL31.js";import"./chunk-L3NEJ4N5-BvbxfG2R.js";import"./chunk-OSK3NFVY-t7ISWe0D.js";import"./chunk-GVQU2GXP-dh4lhS2n.js";import"./chunk-4HAMMTFA-CO-QNyHP.js";import"./chunk-P2QGCYS3-b1EWvzhs.js";import"./chunk-GMAD6QVW-DLWhIFsa.js";import"./chunk-PWAF6VOD-DiyXoF__.js";import"./chunk-75Z2AOVW-DHut7e7o.js";import"./chunk-DU6HZSFF-CsXt0HU_.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};