import{r as e,t}from"./chunk-SHT3W25Y-ByZj2V4A.js";import"./chunk-POPQ4Y6H-DWsEq-VC.js";import"./mermaid.core-DPwuifka.js";import"./chunk-F27PBJKO-DnDtHxKn.js";import"./chunk-L3NEJ4N5-Cpk-DE-W.js";import"./chunk-OSK3NFVY-Bjyu2czG.js";import"./chunk-GVQU2GXP-eDK2K1mk.js";import"./chunk-4HAMMTFA-DSptkq4p.js";import"./chunk-P2QGCYS3-DhFhV1Gg.js";import"./chunk-GMAD6QVW-ywvD4p6q.js";import"./chunk-PWAF6VOD-BhOCyYOE.js";import"./chunk-75Z2AOVW-Ce36r7tu.js";import"./chunk-DU6HZSFF-Dg8BWSJ4.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};