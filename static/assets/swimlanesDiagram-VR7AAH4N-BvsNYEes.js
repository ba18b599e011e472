import{r as e,t}from"./chunk-SHT3W25Y-BTFMj0Qy.js";import"./chunk-POPQ4Y6H-DBME_uu-.js";import"./mermaid.core-tWwvgzTz.js";import"./chunk-F27PBJKO-Dbz3pnmu.js";import"./chunk-L3NEJ4N5-Cp2AhUAv.js";import"./chunk-OSK3NFVY-Boommour.js";import"./chunk-GVQU2GXP-BbIQQHPu.js";import"./chunk-4HAMMTFA-tE45cOTS.js";import"./chunk-P2QGCYS3-Cneu5vZc.js";import"./chunk-GMAD6QVW-D3IPGgyt.js";import"./chunk-PWAF6VOD-Cr1JaN9a.js";import"./chunk-75Z2AOVW-WrYyrFo-.js";import"./chunk-DU6HZSFF-BKvid5ld.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};