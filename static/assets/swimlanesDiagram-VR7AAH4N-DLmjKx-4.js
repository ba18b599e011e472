import{r as e,t}from"./chunk-SHT3W25Y-CPtUIzx9.js";import"./chunk-POPQ4Y6H-BboQiVsR.js";import"./mermaid.core-DdQQvZAq.js";import"./chunk-F27PBJKO-CSi2O6UR.js";import"./chunk-L3NEJ4N5-DmB53vV7.js";import"./chunk-OSK3NFVY-CHgWYMdw.js";import"./chunk-GVQU2GXP-B1aF15hJ.js";import"./chunk-4HAMMTFA-DuCEe3Ou.js";import"./chunk-P2QGCYS3-DOz5kQRm.js";import"./chunk-GMAD6QVW-DC67jaVj.js";import"./chunk-PWAF6VOD-DJLto4gf.js";import"./chunk-75Z2AOVW-B5pz4U-1.js";import"./chunk-DU6HZSFF-BOYqVz82.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};